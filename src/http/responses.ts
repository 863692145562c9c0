import { z } from '@hono/zod-openapi';
import { ErrorSchema } from './schemas.js';

// The response objects of the route definitions: one shape per kind of answer (docs/api.md).

/** A read or write that also answers `format=markdown` with the shared rendering, under the same status. */
export const errorAnswer = (description: string) => ({ description, content: { 'application/json': { schema: ErrorSchema } } });

export const jsonOrMarkdown = <T extends z.ZodType>(schema: T, description: string) => ({
  description: `${description} (\`format=markdown\`: its markdown rendering, the text MCP and the CLI print)`,
  content: { 'application/json': { schema }, 'text/markdown': { schema: { type: 'string' as const } } },
});
