/**
 * One `mcpServer/oauth/login`: the OAuth authorization-code flow with PKCE against an MCP server's
 * authorization server (discovered, and the client registered dynamically, by the MCP SDK). A
 * callback server on 127.0.0.1 waits for the browser's redirect; the code is exchanged for tokens,
 * which are stored for the server's connections.
 */
import { randomBytes } from "node:crypto";
import type { AddressInfo, Server as NetServer } from "node:net";
import { guardedServer } from "../../runtime/sandboxPeers.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { oauthClientMetadata, type McpCredentialStore } from "./mcpCredentials.js";
import { loadMcpSdk } from "./mcpSdk.js";

/** What to log in to, and how long to wait for the browser. */
export interface OAuthLoginRequest {
  readonly name: string;
  readonly url: string;
  readonly scopes: readonly string[] | null;
  readonly timeoutMs: number;
  /** The callback server's port on 127.0.0.1 (0: any free one). */
  readonly callbackPort: number;
  readonly store: McpCredentialStore;
}

/** How a login ended. */
export type OAuthLoginResult = { readonly success: true } | { readonly success: false; readonly error: string };

/** A login waiting for the browser. */
export interface OAuthLogin {
  /** Where the user authorizes this server. */
  readonly authorizationUrl: string;
  /** Settles once: tokens stored, or why not. */
  readonly done: Promise<OAuthLoginResult>;
  /** Ends the wait (the app-server is shutting down). */
  cancel(reason: string): void;
}

/** Why a login could not start (the server has no OAuth, its metadata is broken, the port is taken, the MCP SDK is not installed). */
export class OAuthLoginError extends Error {}

/** Starts a login: resolves once the authorization URL is known. */
export async function startOAuthLogin(request: OAuthLoginRequest): Promise<OAuthLogin> {
  const { auth } = await loadMcpSdk(() => import("@modelcontextprotocol/sdk/client/auth.js"), (message) => new OAuthLoginError(message));
  // Loaded here, not at start-up: only an OAuth login serves HTTP.
  const { createServer } = await import("node:http");
  const callback = createServer();
  // Only the guard listens: a sandboxed command granted network reaches loopback, but not this.
  const front = guardedServer((socket) => callback.emit("connection", socket));
  await listen(front, request.callbackPort);
  const redirectUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}/callback`;
  const state = randomBytes(16).toString("base64url");
  const scope = request.scopes && request.scopes.length > 0 ? request.scopes.join(" ") : undefined;
  let authorizationUrl: string | null = null;
  let verifier: string | null = null;
  let tokens: OAuthTokens | undefined;
  const provider: OAuthClientProvider = {
    redirectUrl,
    clientMetadata: oauthClientMetadata(redirectUrl, scope),
    state: () => state,
    // A client registered for another callback URL (another port) cannot be redirected here: register anew.
    clientInformation: () => registeredFor(request.store.client(request.name, request.url), redirectUrl),
    saveClientInformation: (client) => request.store.save(request.name, request.url, { client }),
    // An explicit login starts over: no stored token is refreshed instead.
    tokens: () => tokens,
    saveTokens: async (saved) => {
      tokens = saved;
      await request.store.save(request.name, request.url, { tokens: saved });
    },
    redirectToAuthorization: (url) => {
      authorizationUrl = url.toString();
    },
    saveCodeVerifier: (code) => {
      verifier = code;
    },
    codeVerifier: () => {
      if (verifier === null) throw new Error("no authorization was started");
      return verifier;
    },
  };

  let settle!: (result: OAuthLoginResult) => void;
  const done = new Promise<OAuthLoginResult>((resolve) => (settle = resolve));
  let finished = false;
  const finish = (result: OAuthLoginResult) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    front.close();
    callback.closeAllConnections();
    settle(result);
  };
  const timer = setTimeout(() => finish({ success: false, error: `no authorization arrived within ${Math.round(request.timeoutMs / 1000)} s` }), request.timeoutMs);
  timer.unref();

  callback.on("request", (incoming, response) => {
    const url = new URL(incoming.url ?? "/", redirectUrl);
    const page = (status: number, text: string) => {
      response.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
      response.end(text);
    };
    if (url.pathname !== "/callback") return page(404, "Not found.");
    if (finished) return page(410, "This login has already ended.");
    if (url.searchParams.get("state") !== state) return page(400, "This is not the login that is waiting (the state does not match).");
    const refused = url.searchParams.get("error");
    const code = url.searchParams.get("code");
    if (refused !== null || code === null) {
      const why = refused === null ? "the redirect carried no code" : [refused, url.searchParams.get("error_description")].filter(Boolean).join(": ");
      page(400, `The login to MCP server ${request.name} failed: ${why}.`);
      return finish({ success: false, error: `authorization failed: ${why}` });
    }
    auth(provider, { serverUrl: request.url, authorizationCode: code, ...(scope ? { scope } : {}) }).then(
      () => {
        page(200, `Logged in to MCP server ${request.name}. You can close this window.`);
        finish({ success: true });
      },
      (error: unknown) => {
        page(502, `The login to MCP server ${request.name} failed: ${(error as Error).message}`);
        finish({ success: false, error: `the token exchange failed: ${(error as Error).message}` });
      },
    );
  });

  try {
    await auth(provider, { serverUrl: request.url, ...(scope ? { scope } : {}) });
  } catch (error) {
    finish({ success: false, error: "" });
    throw new OAuthLoginError(`MCP server \`${request.name}\` does not offer an OAuth login this server can use: ${(error as Error).message}`);
  }
  if (authorizationUrl === null) {
    finish({ success: false, error: "" });
    throw new OAuthLoginError(`MCP server \`${request.name}\` gave no authorization URL`);
  }
  return { authorizationUrl, done, cancel: (reason) => finish({ success: false, error: reason }) };
}

function registeredFor(client: OAuthClientInformationMixed | undefined, redirectUrl: string): OAuthClientInformationMixed | undefined {
  const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
  return Array.isArray(uris) && uris.includes(redirectUrl) ? client : undefined;
}

function listen(server: NetServer, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", (error) => reject(new OAuthLoginError(`cannot listen for the OAuth callback on 127.0.0.1:${port}: ${error.message}`)));
    server.listen(port, "127.0.0.1", () => resolve());
  });
}
