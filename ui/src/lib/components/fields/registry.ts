// The field types of the console: one display and one editor component per
// type, registered here as internal/field registers them on the server, so
// adding a type touches one place on each side.
import type { Component } from 'svelte';
import type { Field } from '../lists/model';
import BooleanDisplay from './BooleanDisplay.svelte';
import BooleanEditor from './BooleanEditor.svelte';
import ChoiceDisplay from './ChoiceDisplay.svelte';
import ChoiceEditor from './ChoiceEditor.svelte';
import DateDisplay from './DateDisplay.svelte';
import DateEditor from './DateEditor.svelte';
import HtmlDisplay from './HtmlDisplay.svelte';
import HtmlEditor from './HtmlEditor.svelte';
import LinkDisplay from './LinkDisplay.svelte';
import LinkEditor from './LinkEditor.svelte';
import LookupDisplay from './LookupDisplay.svelte';
import LookupEditor from './LookupEditor.svelte';
import NumberDisplay from './NumberDisplay.svelte';
import NumberEditor from './NumberEditor.svelte';
import PersonDisplay from './PersonDisplay.svelte';
import PersonEditor from './PersonEditor.svelte';
import TextDisplay from './TextDisplay.svelte';
import TextEditor from './TextEditor.svelte';

export type DisplayProps = { field: Field; value: unknown };
export type EditorProps = {
  field: Field; value: unknown; id: string; listId: string;
  invalid?: boolean; disabled?: boolean; describedby?: string;
  /** accessible name when no <label for> names the control (grid cells) */
  label?: string;
};
type Entry = { display: Component<DisplayProps>; editor: Component<EditorProps, object, 'value'> };

export const fieldRegistry: Record<string, Entry> = {
  text: { display: TextDisplay, editor: TextEditor },
  multiline_text: { display: TextDisplay, editor: TextEditor },
  html_text: { display: HtmlDisplay, editor: HtmlEditor },
  choice: { display: ChoiceDisplay, editor: ChoiceEditor },
  number: { display: NumberDisplay, editor: NumberEditor },
  date: { display: DateDisplay, editor: DateEditor },
  datetime: { display: DateDisplay, editor: DateEditor },
  boolean: { display: BooleanDisplay, editor: BooleanEditor },
  lookup: { display: LookupDisplay, editor: LookupEditor },
  person: { display: PersonDisplay, editor: PersonEditor },
  link: { display: LinkDisplay, editor: LinkEditor },
};

/** The entry of a field's type (text for a type this console does not know). */
export function entryOf(field: Field): Entry {
  return fieldRegistry[field.fieldType] ?? fieldRegistry['text']!;
}
