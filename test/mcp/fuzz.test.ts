import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachDialect, uniqueKey } from '../helpers/harness.js';
import { mcpClient } from '../helpers/mcp-client.js';

/**
 * docs/design/quality.md "Bad input": a fuzz over every MCP tool (both surfaces) with random and malformed
 * arguments, wrong types, huge strings, invalid refs and unicode edge cases: every answer is a
 * result or a refusal with a token — never an internal error or a hang.
 */
const nasty = fc.oneof(
  fc.string({ maxLength: 50 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom('', '#', '#0', '-1', '1e309', 'uid:', 'ffffffff', '\u0000', '\ud800', '💥'.repeat(50), 'x'.repeat(70_000), "'; drop table sessions; --"),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

describeEachDialect('MCP tools under a fuzz (docs/design/quality.md)', (t) => {
  it('never answer with an internal error, on either surface, for any credential', async () => {
    const h = t();
    const live = await h.create(h.fleetKey, { title: 'fuzz target', attach: true });
    const { token: human } = await h.human(uniqueKey('fuzz'));
    const surfaces = [
      { path: '/mcp' as const, token: h.fleetKey },
      { path: '/mcp' as const, token: human },
      { path: '/mcp/self' as const, token: live.session_token },
    ];
    for (const s of surfaces) {
      const client = await mcpClient(h, s.token, s.path);
      const tools = (await client.listTools()).tools;
      expect(tools.length).toBeGreaterThan(3);
      for (const tool of tools) {
        const known = Object.keys((tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {});
        const keys = fc.constantFrom(...known, 'session_id', 'action', 'surprise');
        await fc.assert(
          fc.asyncProperty(
            fc.dictionary(keys, fc.oneof(nasty, fc.constant(live.session.id), fc.constant(String(live.session.id))), { maxKeys: 5 }),
            async (args) => {
              let result: { isError?: boolean; structuredContent?: unknown; content?: { text?: string }[] };
              try {
                result = (await client.callTool({ name: tool.name, arguments: args })) as typeof result;
              } catch (error) {
                // a protocol-level refusal of the arguments (invalid params) is a clear answer too
                expect(String((error as Error).message), `${tool.name} ${JSON.stringify(args).slice(0, 200)}`).not.toMatch(/internal/i);
                return;
              }
              if (result.isError) {
                const body = result.structuredContent as { error?: string } | undefined;
                const text = (result.content ?? []).map((c) => c.text ?? '').join(' ');
                expect(body?.error ?? text, `${tool.name} ${JSON.stringify(args).slice(0, 200)}`).not.toMatch(/internal-error/);
              }
            },
          ),
          { numRuns: 12 },
        );
      }
      await client.close();
    }
  });
});
