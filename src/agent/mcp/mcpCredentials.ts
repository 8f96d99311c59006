/**
 * OAuth credentials of MCP servers (`mcpServer/oauth/login`): the registered client and the tokens
 * of each server, by name and url, in `mcp_oauth_credentials.json` in the home, readable by the
 * owner only. A server whose url changed starts over: credentials are never sent to another url.
 */
import path from "node:path";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import * as z from "zod";
import { lazySchema } from "../../protocol/lazySchema.js";
import { JsonStateFile } from "../../runtime/jsonStateFile.js";

const Entry = lazySchema(() => z.object({ url: z.string(), client: z.unknown().optional(), tokens: z.unknown().optional() }));
const CredentialsFile = lazySchema(() => z.object({ servers: z.record(z.string(), Entry) }));
type CredentialsFile = z.infer<typeof CredentialsFile>;

/** The stored credentials of every MCP server logged in with OAuth. */
export class McpCredentialStore {
  private readonly file: JsonStateFile<CredentialsFile>;

  constructor(home: string) {
    this.file = new JsonStateFile(path.join(home, "mcp_oauth_credentials.json"), CredentialsFile, { servers: {} }, 0o600);
  }

  /** Reads the file (missing or unreadable: no credentials). */
  load(): Promise<void> {
    return this.file.load();
  }

  /** The tokens of server `name` at `url`, if it logged in. */
  tokens(name: string, url: string): OAuthTokens | undefined {
    return this.entry(name, url)?.tokens as OAuthTokens | undefined;
  }

  /** The client registered with server `name`'s authorization server, if any. */
  client(name: string, url: string): OAuthClientInformationMixed | undefined {
    return this.entry(name, url)?.client as OAuthClientInformationMixed | undefined;
  }

  /** Stores (part of) server `name`'s credentials; an entry for another url is replaced. */
  save(name: string, url: string, update: { client?: OAuthClientInformationMixed; tokens?: OAuthTokens }): Promise<void> {
    return this.file.change((draft) => {
      const previous = draft.servers[name]?.url === url ? draft.servers[name] : undefined;
      draft.servers[name] = { ...previous, url, ...update };
    });
  }

  /** Forgets server `name`'s tokens (a refused refresh, a new login), keeping its registered client. */
  forgetTokens(name: string): Promise<void> {
    if (this.file.state.servers[name]?.tokens === undefined) return Promise.resolve();
    return this.file.change((draft) => {
      delete draft.servers[name]!.tokens;
    });
  }

  private entry(name: string, url: string): z.infer<typeof Entry> | undefined {
    const entry = this.file.state.servers[name];
    return entry?.url === url ? entry : undefined;
  }
}

/** What this server registers as, for one redirect URL. */
export function oauthClientMetadata(redirectUrl: string | undefined, scope: string | undefined): OAuthClientMetadata {
  return {
    client_name: "agent-app-server",
    redirect_uris: redirectUrl ? [redirectUrl] : [],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...(scope ? { scope } : {}),
  };
}

/**
 * The provider a connection uses once server `name` has logged in: the stored tokens, refreshed
 * (and stored again) by the SDK when they expire. It cannot send anyone to a browser: a server
 * that needs a new login fails to start, saying so.
 */
export function storedOAuthProvider(store: McpCredentialStore, name: string, url: string): OAuthClientProvider {
  return {
    redirectUrl: undefined,
    clientMetadata: oauthClientMetadata(undefined, undefined),
    clientInformation: () => store.client(name, url),
    tokens: () => store.tokens(name, url),
    saveTokens: (tokens) => store.save(name, url, { tokens }),
    redirectToAuthorization: () => {
      throw new Error(`the OAuth login of MCP server \`${name}\` expired; log in again with mcpServer/oauth/login`);
    },
    saveCodeVerifier: () => undefined,
    codeVerifier: () => {
      throw new Error("no OAuth login is in progress");
    },
    invalidateCredentials: async (scope) => {
      if (scope === "all" || scope === "tokens") await store.forgetTokens(name);
    },
  };
}
