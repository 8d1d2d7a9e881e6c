// Русские тексты области items; ключи те же, что в en/items.ts.
import type en from '../en/items';

export default {
} satisfies Record<keyof typeof en, string>;
