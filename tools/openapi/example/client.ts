// A script written against the TypeScript types that openapi-typescript
// generates from the served document (scripts/openapi-lint writes them to
// api.d.ts beside this file and type-checks it with tsc --strict): sign in,
// create a section and a list, read a page of its items. A change of the
// document that breaks such a client breaks this check.
import createClient from "openapi-fetch";
import type { paths } from "./api";

export async function example(baseUrl: string, login: string, password: string): Promise<number> {
  const client = createClient<paths>({ baseUrl });

  const signIn = await client.POST("/api/v1/auth/login", { body: { login, password } });
  if (!signIn.data) {
    throw new Error(`sign-in refused: ${signIn.error?.error?.message ?? "no answer"}`);
  }
  const token: string = signIn.data.data.token;
  const authorized = { headers: { Authorization: `Bearer ${token}` } };

  const node = await client.POST("/api/v1/nodes", { ...authorized, body: { slug: "team", title: "Team" } });
  if (!node.data?.data) {
    throw new Error(`node not created: ${node.error?.error?.code ?? "?"}`);
  }
  const nodeId: string = node.data.data.id;

  const list = await client.POST("/api/v1/lists", { ...authorized, body: { nodeId, slug: "tasks", title: "Tasks" } });
  if (!list.data) {
    throw new Error(`list not created: ${list.error?.error?.code ?? "?"}`);
  }
  const listId: string = list.data.data.id;

  const items = await client.GET("/api/v1/lists/{listId}/items", {
    ...authorized,
    params: { path: { listId }, query: { page: 1, limit: 50 } },
  });
  if (!items.data) {
    throw new Error(`items not read: ${items.error?.error?.code ?? "?"}`);
  }
  const page = items.data.data ?? [];
  for (const item of page) {
    const id: number = item.id;
    console.log(id, item.field_values);
  }
  return page.length;
}
