import { execFileSync } from "node:child_process";

/** Lines of the process table (`pid args`) of live processes whose command line contains `text`. */
export function processesMatching(text: string): string[] {
  const table = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return table.split("\n").filter((line) => line.includes(text) && !line.includes("ps -eo"));
}
