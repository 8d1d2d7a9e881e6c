// Русские тексты области grid; ключи те же, что в en/grid.ts.
import type en from '../en/grid';

export default {
} satisfies Record<keyof typeof en, string>;
