// Types of bench/lib.mjs, for the tests that share its helpers.
export declare const CLI: string;
export declare function mockProviderFlags(mockUrl: string): string[];
export declare function benchHome(prefix?: string): string;
export declare function procStatusKb(pid: number, field: "VmRSS" | "VmHWM"): number | null;
export declare function median(values: readonly number[]): number;
export declare function startServer(command: readonly string[], env: NodeJS.ProcessEnv, options?: { cwd?: string }): unknown;
