// English texts of the lists area. Keys are the contract: ru/lists.ts has the same keys.
export default {
} as const satisfies Record<string, string>;
