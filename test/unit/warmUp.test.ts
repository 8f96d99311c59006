import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AgentWarmUp } from "../../src/agent/warmUp.js";
import { Activity } from "../../src/runtime/activity.js";
import { RequestScheduler } from "../../src/server/requestScheduler.js";

const QUIET_MS = 100;

/** A warm-up over steps that only record that they ran. */
function recordingWarmUp(activity: Activity) {
  const ran: string[] = [];
  const step = (name: string) => async () => void ran.push(name);
  return { ran, warmUp: new AgentWarmUp(activity, [step("sdk"), step("exec")], QUIET_MS) };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("AgentWarmUp", () => {
  it("loads nothing while a request is in flight, then one step per quiet spell", async () => {
    const activity = new Activity();
    const { ran, warmUp } = recordingWarmUp(activity);
    const requestDone = activity.begin();
    warmUp.request();
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(ran).toEqual([]);
    requestDone();
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(ran).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(ran).toEqual(["sdk"]);
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(ran).toEqual(["sdk", "exec"]);
  });

  it("starts the quiet spell over when a request comes and goes within it", async () => {
    const activity = new Activity();
    const { ran, warmUp } = recordingWarmUp(activity);
    warmUp.request();
    await vi.advanceTimersByTimeAsync(QUIET_MS / 2);
    activity.begin()();
    await vi.advanceTimersByTimeAsync(QUIET_MS / 2);
    expect(ran).toEqual([]);
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(ran).toEqual(["sdk"]);
  });

  it("runs its steps once however often it is asked", async () => {
    const activity = new Activity();
    const { ran, warmUp } = recordingWarmUp(activity);
    warmUp.request();
    warmUp.request();
    await vi.advanceTimersByTimeAsync(5 * QUIET_MS);
    warmUp.request();
    await vi.advanceTimersByTimeAsync(5 * QUIET_MS);
    expect(ran).toEqual(["sdk", "exec"]);
  });

  it("waits for every request the scheduler admitted, queued ones included", async () => {
    const activity = new Activity();
    const scheduler = new RequestScheduler({ perConnection: 10 }, activity);
    const client = { owner: {} };
    const { ran, warmUp } = recordingWarmUp(activity);
    let finishFirst!: () => void;
    const first = scheduler.run(client, "thread:a", () => new Promise<void>((resolve) => (finishFirst = resolve)));
    const second = scheduler.run(client, "thread:a", async () => undefined);
    warmUp.request();
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(ran).toEqual([]);
    finishFirst();
    await Promise.all([first, second]);
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(ran).toEqual(["sdk"]);
  });
});
