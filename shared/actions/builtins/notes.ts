/** notes_put (idempotent) and notes_append (not idempotent): small built-ins with visible side effects. */
import * as z from 'zod';
import type { Action } from '../../core/actions.ts';
import type { NotesPort } from '../notes-port.ts';

const NoteName = z
  .string()
  .regex(/^[a-z0-9_-]{1,64}$/, 'lowercase letters, digits, _ and -')
  .describe('The note name.');

export function notesPutAction(notes: NotesPort): Action {
  return {
    name: 'notes_put',
    description: 'Set a run note to a value, replacing what it held. Safe to repeat.',
    input: z.object({ name: NoteName, value: z.string().max(10_000).describe('The new content.') }).strict(),
    idempotent: true,
    irreversible: false,
    async run(input, ctx) {
      const { name, value } = input as { name: string; value: string };
      await notes.put(ctx.scope.runId, name, value);
      return { content: `Note '${name}' set (${value.length} characters).`, isError: false };
    },
  };
}

export function notesAppendAction(notes: NotesPort): Action {
  return {
    name: 'notes_append',
    description: 'Append one line to a run note. Each call adds a line, so repeating it duplicates the line.',
    input: z.object({ name: NoteName, line: z.string().max(2_000).describe('The line to append.') }).strict(),
    idempotent: false,
    irreversible: false,
    async run(input, ctx) {
      const { name, line } = input as { name: string; line: string };
      const count = await notes.append(ctx.scope.runId, name, line);
      return { content: `Appended to note '${name}'; it now has ${count} line(s).`, isError: false };
    },
  };
}
