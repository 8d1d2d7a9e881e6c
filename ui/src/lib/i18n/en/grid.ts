// English texts of the grid area. Keys are the contract: ru/grid.ts has the same keys.
export default {
} as const satisfies Record<string, string>;
