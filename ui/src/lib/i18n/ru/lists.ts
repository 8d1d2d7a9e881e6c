// Русские тексты области lists; ключи те же, что в en/lists.ts.
import type en from '../en/lists';

export default {
} satisfies Record<keyof typeof en, string>;
