// English texts of the nodes area. Keys are the contract: ru/nodes.ts has the same keys.
export default {
} as const satisfies Record<string, string>;
