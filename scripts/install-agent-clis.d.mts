// Types for scripts/install-agent-clis.mjs (imported by test/agents/capture-fixtures.mts).
export declare const AGENT_CLI_PINS: { '@anthropic-ai/claude-code': string; '@openai/codex': string; '@modelcontextprotocol/inspector': string };
