import type { Context } from 'hono';

/** A JSX tree (hono/jsx) as the HTML of a whole page or of a fragment; escaping is the engine's. */
type Renderable = { toString(): string | Promise<string> } | string | Promise<string>;

async function text(node: Renderable): Promise<string> {
  return typeof node === 'string' ? node : await node.toString();
}

export async function htmlPage(c: Context, node: Renderable, status = 200): Promise<Response> {
  return c.html('<!doctype html>\n' + (await text(node)), status as 200);
}

export async function htmlFragment(c: Context, node: Renderable, status = 200): Promise<Response> {
  return c.html(await text(node), status as 200);
}
