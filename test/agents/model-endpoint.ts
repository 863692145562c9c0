/**
 * A scripted stand-in for the model APIs the real agent CLIs call (docs/design/agent-clis.md):
 * the streamed Anthropic Messages API for Claude Code, the streamed OpenAI Responses API for
 * Codex. A test gives a list of steps; each model request takes the first unused step whose
 * `when` matches it, else a plain default reply. Every request is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Api = 'anthropic' | 'openai';

/** What a step's predicate sees of one model request, the same for both APIs. */
export interface ModelRequest {
  api: Api;
  /** text of the newest user-role message (tool results excluded) */
  lastUserText: string;
  /** every user-role text in the conversation so far */
  userTexts: string[];
  /** tool results in the newest message(s): call id and text */
  toolResults: { id: string; text: string }[];
  /** names of the tools offered to the model */
  toolNames: string[];
  /** system / instructions text */
  system: string;
  model: string;
  body: any;
}

export type Reply = { text: string } | { tool: string; input: Record<string, unknown>; id?: string; text?: string };

export interface Step {
  /** default: a request that offers tools and carries no tool result (the start of a turn) */
  when?: (r: ModelRequest) => boolean;
  reply: Reply | ((r: ModelRequest) => Reply);
  /** a label for failure messages */
  name?: string;
  /** hold the answer this long (a model still thinking: the agent stays inside its turn) */
  delayMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** the step that answered, when one did */
  step?: string;
}

/** The common predicates. */
export const when = {
  /** the newest message holds the result of this tool call id */
  resultOf: (id: string) => (r: ModelRequest) => r.toolResults.some((t) => t.id === id),
  /** the newest user text contains this */
  userSays: (text: string) => (r: ModelRequest) => r.toolResults.length === 0 && r.lastUserText.includes(text),
  /** any user text so far contains this, and the newest message holds a tool result */
  resultIn: (text: string) => (r: ModelRequest) => r.toolResults.length > 0 && r.userTexts.some((t) => t.includes(text)),
};

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c: any) =>
      typeof c === 'string'
        ? c
        : c?.type === 'text' || c?.type === 'input_text' || c?.type === 'output_text'
          ? String(c.text ?? '')
          : c?.type === 'tool_result'
            ? textOf(c.content)
            : '',
    )
    .join('\n');
}

function normalizeAnthropic(body: any): ModelRequest {
  // Claude Code also puts `system`-role entries between the turns: only user/assistant count
  const messages: any[] = (Array.isArray(body?.messages) ? body.messages : []).filter((m: any) => m.role === 'user' || m.role === 'assistant');
  const textBlocks = (m: any): string =>
    Array.isArray(m.content)
      ? m.content
          .filter((c: any) => c?.type === 'text')
          .map((c: any) => c.text)
          .join('\n')
      : textOf(m.content);
  const userTexts = messages
    .filter((m) => m.role === 'user')
    .map(textBlocks)
    .filter((t) => t !== '');
  let tail = messages.length;
  while (tail > 0 && messages[tail - 1].role === 'user') tail -= 1;
  const newest = messages.slice(tail);
  const blocks: any[] = newest.flatMap((m) => (Array.isArray(m.content) ? m.content : [{ type: 'text', text: textOf(m.content) }]));
  const toolResults = blocks.filter((c) => c?.type === 'tool_result').map((c) => ({ id: String(c.tool_use_id), text: textOf(c.content) }));
  return {
    api: 'anthropic',
    lastUserText: blocks
      .filter((c) => c?.type === 'text')
      .map((c) => c.text)
      .join('\n'),
    userTexts,
    toolResults,
    toolNames: (body?.tools ?? []).map((t: any) => String(t.name)),
    system: textOf(body?.system),
    model: String(body?.model ?? ''),
    body,
  };
}

function normalizeOpenAi(body: any): ModelRequest {
  const input: any[] = Array.isArray(body?.input) ? body.input : typeof body?.input === 'string' ? [{ role: 'user', content: body.input }] : [];
  const userTexts = input
    .filter((i) => i.role === 'user')
    .map((i) => textOf(i.content))
    .filter((t) => t !== '');
  // the newest items after the last assistant/function_call item
  let tail = input.length;
  while (tail > 0 && (input[tail - 1].type === 'function_call_output' || input[tail - 1].role === 'user' || input[tail - 1].type === 'custom_tool_call_output'))
    tail -= 1;
  const newest = input.slice(tail);
  const toolResults = newest
    .filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output')
    .map((i) => ({ id: String(i.call_id), text: typeof i.output === 'string' ? i.output : JSON.stringify(i.output) }));
  const lastUser = [...newest].reverse().find((i) => i.role === 'user');
  return {
    api: 'openai',
    lastUserText: lastUser ? textOf(lastUser.content) : '',
    userTexts,
    toolResults,
    toolNames: (body?.tools ?? []).flatMap((t: any) =>
      t.type === 'namespace' ? (t.tools ?? []).map((x: any) => `${t.name}__${x.name}`) : [String(t.name ?? t.type)],
    ),
    system: String(body?.instructions ?? ''),
    model: String(body?.model ?? ''),
    body,
  };
}

export interface ModelEndpoint {
  url: string;
  requests: RecordedRequest[];
  /** model requests only, normalized */
  modelRequests: ModelRequest[];
  /** steps not yet used (a test asserts this is empty) */
  pending(): string[];
  close(): Promise<void>;
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(++counter).toString(36)}`;

function sse(res: ServerResponse, events: { event: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const e of events) res.write(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}

function anthropicEvents(reply: Reply, model: string): { event: string; data: unknown }[] {
  const id = nextId('msg');
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const out: { event: string; data: unknown }[] = [
    {
      event: 'message_start',
      data: { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } },
    },
  ];
  let index = 0;
  const text = 'tool' in reply ? reply.text : reply.text;
  if (text) {
    out.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
    out.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text } } });
    out.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    index += 1;
  }
  if ('tool' in reply) {
    const toolId = reply.id ?? nextId('toolu');
    out.push({
      event: 'content_block_start',
      data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: toolId, name: reply.tool, input: {} } },
    });
    out.push({
      event: 'content_block_delta',
      data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.input) } },
    });
    out.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  }
  out.push({
    event: 'message_delta',
    data: { type: 'message_delta', delta: { stop_reason: 'tool' in reply ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
  });
  out.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return out;
}

function anthropicMessage(reply: Reply, model: string): unknown {
  const content: unknown[] = [];
  if (reply.text) content.push({ type: 'text', text: reply.text });
  if ('tool' in reply) content.push({ type: 'tool_use', id: reply.id ?? nextId('toolu'), name: reply.tool, input: reply.input });
  return {
    id: nextId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: 'tool' in reply ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

/** Codex offers MCP and multi-agent tools inside `namespace` tools: `mcp__mini` + `echo_env`. */
function splitNamespace(tool: string, tools: any[]): { name: string; namespace?: string } {
  for (const t of tools) {
    if (t?.type !== 'namespace' || !tool.startsWith(`${t.name}__`)) continue;
    const rest = tool.slice(String(t.name).length + 2);
    if ((t.tools ?? []).some((x: any) => x.name === rest)) return { name: rest, namespace: String(t.name) };
  }
  return { name: tool };
}

function openAiEvents(reply: Reply, model: string, tools: any[]): { event: string; data: unknown }[] {
  const id = nextId('resp');
  const output: any[] = [];
  if (reply.text)
    output.push({
      type: 'message',
      id: nextId('msg'),
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    });
  if ('tool' in reply)
    output.push({
      type: 'function_call',
      id: nextId('fc'),
      call_id: reply.id ?? nextId('call'),
      ...splitNamespace(reply.tool, tools),
      arguments: JSON.stringify(reply.input),
      status: 'completed',
    });
  const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model, output: [] as unknown[], status: 'in_progress' };
  const events: { event: string; data: unknown }[] = [
    { event: 'response.created', data: { type: 'response.created', response: base } },
    { event: 'response.in_progress', data: { type: 'response.in_progress', response: base } },
  ];
  output.forEach((item, i) => {
    events.push({
      event: 'response.output_item.added',
      data: {
        type: 'response.output_item.added',
        output_index: i,
        item: { ...item, status: 'in_progress', ...(item.type === 'message' ? { content: [] } : { arguments: '' }) },
      },
    });
    if (item.type === 'message') {
      events.push({
        event: 'response.output_text.delta',
        data: { type: 'response.output_text.delta', item_id: item.id, output_index: i, content_index: 0, delta: item.content[0].text },
      });
    } else {
      events.push({
        event: 'response.function_call_arguments.delta',
        data: { type: 'response.function_call_arguments.delta', item_id: item.id, output_index: i, delta: item.arguments },
      });
    }
    events.push({ event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: i, item } });
  });
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  events.push({ event: 'response.completed', data: { type: 'response.completed', response: { ...base, status: 'completed', output, usage } } });
  return events;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parse(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Default `when`: the start of a turn (tools offered, no tool result in the newest message). */
const turnStart = (r: ModelRequest) => r.toolNames.length > 0 && r.toolResults.length === 0;

export async function startModelEndpoint(steps: Step[], options: { defaultText?: string; log?: (line: string) => void } = {}): Promise<ModelEndpoint> {
  const used = new Set<number>();
  const requests: RecordedRequest[] = [];
  const modelRequests: ModelRequest[] = [];
  const pick = (r: ModelRequest): { reply: Reply; name?: string; delayMs?: number } => {
    for (let i = 0; i < steps.length; i += 1) {
      if (used.has(i)) continue;
      const step = steps[i]!;
      if ((step.when ?? turnStart)(r)) {
        used.add(i);
        return { reply: typeof step.reply === 'function' ? step.reply(r) : step.reply, name: step.name ?? `step ${i}`, delayMs: step.delayMs };
      }
    }
    return { reply: { text: options.defaultText ?? 'Done.' } };
  };

  // the handler answers every request itself (its try/catch); `void`: node's server does not await it
  const server: Server = createServer(
    (req, res) =>
      void (async () => {
        const raw = await readBody(req);
        const body = parse(raw);
        const path = (req.url ?? '/').split('?')[0]!;
        const record: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
        requests.push(record);
        options.log?.(`${record.method} ${req.url} ${raw.length}B`);
        try {
          if (req.method === 'POST' && path.endsWith('/v1/messages')) {
            const r = normalizeAnthropic(body);
            modelRequests.push(r);
            const { reply, name, delayMs } = pick(r);
            record.step = name;
            if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
            const model = r.model || 'claude-scripted';
            if ((body as any)?.stream) sse(res, anthropicEvents(reply, model));
            else json(res, 200, anthropicMessage(reply, model));
            return;
          }
          if (req.method === 'POST' && path.endsWith('/messages/count_tokens')) return json(res, 200, { input_tokens: 10 });
          if (req.method === 'POST' && path.endsWith('/responses')) {
            const r = normalizeOpenAi(body);
            modelRequests.push(r);
            const { reply, name, delayMs } = pick(r);
            record.step = name;
            if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
            sse(res, openAiEvents(reply, r.model || 'gpt-scripted', (body as any)?.tools ?? []));
            return;
          }
          if (path.endsWith('/models')) return json(res, 200, { object: 'list', data: [], models: [] });
          // telemetry, feature flags, anything else: a harmless empty answer
          json(res, 200, {});
        } catch (error) {
          json(res, 500, { error: { type: 'scripted_endpoint_error', message: (error as Error).message } });
        }
      })(),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    modelRequests,
    pending: () => steps.map((s, i) => (used.has(i) ? null : (s.name ?? `step ${i}`))).filter((x): x is string => x !== null),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}
