import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** A streamable HTTP MCP server behind its own OAuth authorization server, in this process. */
export interface OAuthMcpServer {
  /** The MCP endpoint (`…/mcp`). */
  readonly url: string;
  /** What the authorization server saw: registrations, token grants. */
  readonly log: string[];
  /** When true, /authorize refuses (the user said no). */
  deny: boolean;
  close(): Promise<void>;
}

/**
 * Serves RFC 9728 protected-resource metadata, RFC 8414 authorization-server metadata, dynamic
 * client registration, an /authorize that approves at once (no user to ask), a /token that checks
 * the PKCE verifier, and an MCP endpoint with one `whoami` tool that answers 401 without a token
 * it issued.
 */
export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const clients = new Map<string, string[]>();
  const codes = new Map<string, { challenge: string; clientId: string; redirectUri: string }>();
  const tokens = new Set<string>();
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const server: OAuthMcpServer = {
    url: `${base}/mcp`,
    log: [],
    deny: false,
    close: () => {
      http.closeAllConnections();
      return new Promise((resolve) => http.close(() => resolve()));
    },
  };
  const json = (response: ServerResponse, status: number, body: unknown) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  http.on("request", async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", base);
    const body = request.method === "POST" && url.pathname !== "/mcp" ? await readBody(request) : "";
    switch (url.pathname) {
      case "/.well-known/oauth-protected-resource/mcp":
      case "/.well-known/oauth-protected-resource":
        return json(response, 200, { resource: server.url, authorization_servers: [base], scopes_supported: ["mcp:tools"] });
      case "/.well-known/oauth-authorization-server":
        return json(response, 200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
        });
      case "/register": {
        const metadata = JSON.parse(body);
        const clientId = `client-${clients.size + 1}`;
        clients.set(clientId, metadata.redirect_uris);
        server.log.push(`register ${clientId}`);
        return json(response, 201, { ...metadata, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) });
      }
      case "/authorize": {
        const redirectUri = url.searchParams.get("redirect_uri") ?? "";
        const clientId = url.searchParams.get("client_id") ?? "";
        if (!clients.get(clientId)?.includes(redirectUri)) return json(response, 400, { error: "invalid_request" });
        const target = new URL(redirectUri);
        target.searchParams.set("state", url.searchParams.get("state") ?? "");
        if (server.deny) {
          target.searchParams.set("error", "access_denied");
          target.searchParams.set("error_description", "The user said no");
        } else {
          const code = randomUUID();
          codes.set(code, { challenge: url.searchParams.get("code_challenge") ?? "", clientId, redirectUri });
          target.searchParams.set("code", code);
        }
        return response.writeHead(302, { location: target.toString() }).end();
      }
      case "/token": {
        const form = new URLSearchParams(body);
        if (form.get("grant_type") === "authorization_code") {
          const grant = codes.get(form.get("code") ?? "");
          const verifier = form.get("code_verifier") ?? "";
          if (!grant || createHash("sha256").update(verifier).digest("base64url") !== grant.challenge || form.get("redirect_uri") !== grant.redirectUri) {
            return json(response, 400, { error: "invalid_grant" });
          }
          codes.delete(form.get("code")!);
        } else if (form.get("grant_type") !== "refresh_token") {
          return json(response, 400, { error: "unsupported_grant_type" });
        }
        const token = randomUUID();
        tokens.add(token);
        server.log.push(`token ${form.get("grant_type")}`);
        return json(response, 200, { access_token: token, token_type: "Bearer", expires_in: 3600, refresh_token: randomUUID() });
      }
      case "/mcp": {
        const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
        if (!token || !tokens.has(token)) {
          return response
            .writeHead(401, { "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`, "content-type": "application/json" })
            .end(JSON.stringify({ error: "invalid_token" }));
        }
        if (request.method !== "POST") return response.writeHead(405).end();
        const mcp = new McpServer({ name: "secure", version: "1.0.0" });
        mcp.registerTool("whoami", { description: "Says who is calling." }, async () => ({ content: [{ type: "text", text: "a logged-in client" }] }));
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        response.on("close", () => {
          void transport.close();
          void mcp.close();
        });
        await mcp.connect(transport);
        return transport.handleRequest(request, response);
      }
      default:
        return json(response, 404, { error: "not_found" });
    }
  });
  return server;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}
