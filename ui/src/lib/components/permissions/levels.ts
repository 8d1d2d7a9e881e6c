// Permission levels and resource kinds of the ACL (SPEC "Authorization model").
import { t } from '../../i18n/index.svelte';

export type Level = 'view' | 'add' | 'edit' | 'delete';
export type ResourceType = 'node' | 'list' | 'list_item' | 'library' | 'page' | 'survey' | 'file';

/** Levels from the least to the most; each includes the previous ones. */
export const levels: readonly Level[] = ['view', 'add', 'edit', 'delete'];

/** A level in words; null is no access. The interface calls delete "full access". */
export function levelText(level: Level | null): string {
  switch (level) {
    case 'view':
      return t('perms.level.view');
    case 'add':
      return t('perms.level.add');
    case 'edit':
      return t('perms.level.edit');
    case 'delete':
      return t('perms.level.delete');
    default:
      return t('perms.level.none');
  }
}
