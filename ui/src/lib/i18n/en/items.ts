// English texts of the items area. Keys are the contract: ru/items.ts has the same keys.
export default {
} as const satisfies Record<string, string>;
