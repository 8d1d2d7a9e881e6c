// Русские тексты области nodes; ключи те же, что в en/nodes.ts.
import type en from '../en/nodes';

export default {
} satisfies Record<keyof typeof en, string>;
