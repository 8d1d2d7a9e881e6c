// English texts of the perms area. Keys are the contract: ru/perms.ts has the same keys.
export default {
} as const satisfies Record<string, string>;
