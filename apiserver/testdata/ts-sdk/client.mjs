// The official MCP TypeScript SDK's client against a running Takhtabush:
// connect to the URL, list the tools, call one, print what it saw as JSON.
//
//   node client.mjs URL BEARER_TOKEN TOOL_TO_CALL
//
// Run by the apiserver tests (ts_sdk_test.go); install: make ts-sdk.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, toCall] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "takhtabush-ts-sdk-test", version: "1.0.0" });
const out = {};
try {
  await client.connect(transport);
  out.protocolVersion = transport.protocolVersion ?? null;
  out.server = client.getServerVersion();
  out.instructions = client.getInstructions() ?? "";
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  out.tools = tools;
  try {
    const res = await client.callTool({ name: toCall, arguments: {} });
    out.call = { isError: res.isError ?? false, text: res.content?.[0]?.text ?? "" };
  } catch (err) {
    out.call = { code: err.code ?? null, message: String(err.message ?? err) };
  }
} catch (err) {
  out.error = String(err?.stack ?? err);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(out) + "\n");
