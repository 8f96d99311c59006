export { startMockModel, type MockModel, type MockModelOptions, type RecordedRequest } from "./mockModelServer.js";
export { parseMockScript, MockItem, MockResponse, type MockResponseInput } from "./mockScript.js";
export { runScenario, runScenarioFile, type RunScenarioOptions } from "./scenarioRunner.js";
export { parseScenario, Scenario, ScenarioStep, type ScenarioAnswer } from "./scenario.js";
export { normalizeTranscript, renderTranscript, diffTranscripts, type TranscriptEntry, type NormalizeOptions } from "./transcript.js";
export { startScriptedProvider, SCRIPTED_PROVIDER } from "./scriptedProvider.js";
