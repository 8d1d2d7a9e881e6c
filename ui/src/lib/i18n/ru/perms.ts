// Русские тексты области perms; ключи те же, что в en/perms.ts.
import type en from '../en/perms';

export default {
} satisfies Record<keyof typeof en, string>;
