/**
 * How a command process is started. Every spawner (piped, pseudo-terminal, detached) takes a
 * {@link Launcher} instead of an argv, so that a sandboxed command can only ever be started
 * through the sandbox's launcher, with its environment handed over out of band.
 */

/** The program line and environment to exec for a command, and what to clean up once it exited. */
export interface Launch {
  readonly argv: readonly string[];
  readonly env: Record<string, string>;
  /** Call once the process exited (files it was handed, mount points it held). Safe to repeat. */
  readonly exited: () => void;
}

/** Turns the environment a command should run with into how to start it. */
export type Launcher = (env: Record<string, string>) => Launch;

/** A command started as it is, with its environment (full access, or an approved escalation). */
export function directLauncher(argv: readonly string[]): Launcher {
  return (env) => ({ argv: [...argv], env, exited: () => undefined });
}
