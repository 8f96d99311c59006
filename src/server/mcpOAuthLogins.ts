import { OAuthLoginError, startOAuthLogin, type McpCredentialStore, type McpManager, type OAuthLogin } from "../agent/index.js";
import type { Config } from "../config/schema.js";
import { invalidRequest } from "../protocol/errors.js";
import type { ClientHub } from "./clientHub.js";

/** What logins need. */
export interface McpOAuthLoginsDeps {
  readonly mcp: McpManager;
  readonly config: () => Config;
  readonly credentials: McpCredentialStore;
  readonly hub: ClientHub;
  readonly newId: () => string;
}

// How long a login waits for the browser unless the client says otherwise.
const DEFAULT_TIMEOUT_SECS = 300;

/**
 * The `mcpServer/oauth/login` logins waiting for a browser, one per server (a new one replaces
 * it). Each ends in `mcpServer/oauthLogin/completed` to every client; a successful one restarts
 * its server, which then connects with the new tokens. Shutdown ends those still waiting.
 */
export class McpOAuthLogins {
  private readonly active = new Map<string, OAuthLogin>();

  constructor(private readonly deps: McpOAuthLoginsDeps) {}

  /** Starts a login to server `name`; resolves with where the user authorizes it. */
  async start(params: { name: string; scopes?: string[] | null; timeoutSecs?: number | null; threadId?: string | null }): Promise<{ authorizationUrl: string; loginId: string }> {
    const { name } = params;
    const config = this.deps.config();
    const server = config.mcp_servers?.[name];
    if (!server) throw invalidRequest(`no MCP server named \`${name}\` is configured`);
    if (server.url === undefined || server.command !== undefined) throw invalidRequest(`MCP server \`${name}\` is a stdio server: OAuth login is for streamable HTTP servers`);
    if (server.bearer_token_env_var !== undefined) throw invalidRequest(`MCP server \`${name}\` signs in with bearer_token_env_var; remove it to use an OAuth login`);
    let login: OAuthLogin;
    try {
      login = await startOAuthLogin({
        name,
        url: server.url,
        scopes: params.scopes ?? null,
        timeoutMs: (params.timeoutSecs ?? DEFAULT_TIMEOUT_SECS) * 1000,
        callbackPort: config.mcp_oauth_callback_port ?? 0,
        store: this.deps.credentials,
      });
    } catch (error) {
      if (error instanceof OAuthLoginError) throw invalidRequest(error.message);
      throw error;
    }
    const loginId = this.deps.newId();
    this.active.get(name)?.cancel("a newer login to this server replaced it");
    this.active.set(name, login);
    void login.done.then(async (result) => {
      if (this.active.get(name) === login) this.active.delete(name);
      this.deps.hub.toInitialized("mcpServer/oauthLogin/completed", { name, success: result.success, error: result.success ? null : result.error, loginId, threadId: params.threadId ?? null });
      if (result.success) await this.deps.mcp.restart(name);
    });
    return { authorizationUrl: login.authorizationUrl, loginId };
  }

  /** Ends every login still waiting (the app-server is shutting down). */
  stop(): void {
    for (const login of this.active.values()) login.cancel("the app-server shut down");
    this.active.clear();
  }
}
