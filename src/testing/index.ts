export { startMockModel, type MockModel, type MockModelOptions, type RecordedRequest } from "./mockModelServer.js";
export { parseMockScript, MockItem, MockResponse, type MockResponseInput } from "./mockScript.js";
