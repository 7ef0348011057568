// A thin driver of the TypeScript MCP SDK's client for e2e/mcp_test.go:
// it connects to `virgo-tui mcp` over stdio or streamable HTTP, then reads
// one JSON command a line on stdin and writes one JSON answer a line on
// stdout. Commands: {"op":"list"}, {"op":"call","tool":…,"args":{…}} and
// {"op":"subscribe","uri":…}. Progress notifications are written as
// {"progress": message} lines, resource updates as {"updated": uri}. A
// call with "defaults": true passes no request options: the SDK's default
// 60 s timeout applies, and no progress token is sent.
//
//   node client.mjs stdio COMMAND ARG...
//   node client.mjs http URL TOKEN
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import readline from "node:readline";

const out = (v) => process.stdout.write(JSON.stringify(v) + "\n");

const [mode, ...rest] = process.argv.slice(2);
let transport;
if (mode === "stdio") {
  const [command, ...args] = rest;
  transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
} else if (mode === "http") {
  const [url, token] = rest;
  transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
} else {
  out({ error: `unknown mode ${mode}` });
  process.exit(2);
}

const client = new Client({ name: "virgo-e2e-ts", version: "1.0.0" });
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => out({ updated: n.params.uri }));
try {
  await client.connect(transport);
} catch (e) {
  out({ error: String(e && e.message ? e.message : e), code: e && e.code });
  process.exit(0);
}
out({ connected: true, server: client.getServerVersion() });

const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  if (!line.trim()) continue;
  const cmd = JSON.parse(line);
  try {
    if (cmd.op === "list") {
      const res = await client.listTools();
      out({ tools: res.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: t.annotations })) });
    } else if (cmd.op === "subscribe") {
      await client.subscribeResource({ uri: cmd.uri });
      out({ subscribed: cmd.uri });
    } else if (cmd.op === "call" && cmd.defaults) {
      out({ result: await client.callTool({ name: cmd.tool, arguments: cmd.args ?? {} }) });
    } else if (cmd.op === "call") {
      const res = await client.callTool({ name: cmd.tool, arguments: cmd.args ?? {} }, undefined, {
        timeout: 120000,
        resetTimeoutOnProgress: true,
        onprogress: (p) => out({ progress: p.message ?? "" }),
      });
      out({ result: res });
    } else {
      out({ error: `unknown op ${cmd.op}` });
    }
  } catch (e) {
    out({ error: String(e && e.message ? e.message : e), code: e && e.code });
  }
}
await client.close();
