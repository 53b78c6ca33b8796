import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { FORM_FIELDS } from '../rules/page-settings.ts';
import { defuse } from './format.ts';

/** The columns of a form answers export, in order: the time, each field kurz asks, and the consent. */
export const FORM_ANSWER_COLUMNS = ['at', ...FORM_FIELDS, 'consent'] as const;
/** The columns of an answer besides its time, as the pages list them. */
export const FORM_ANSWER_FIELDS = FORM_ANSWER_COLUMNS.slice(1);

/** The header line of a CSV of form answers. */
export function formAnswerCsvHeader(): string {
  return stringifyCsv([[...FORM_ANSWER_COLUMNS]]);
}

/** One stored answer (its time and answers' JSON object) as a CSV line; cells are safe to open in a spreadsheet. */
export function formAnswerCsvLine(at: Date, answers: Record<string, unknown>): string {
  return stringifyCsv([[at.toISOString(), ...FORM_ANSWER_COLUMNS.slice(1).map((c) => defuse(answerText(answers[c])))]]);
}

/** An answer as text: a field's as given, the consent as yes or no, '' when absent. */
export function answerText(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'boolean' ? (value ? 'yes' : 'no') : '';
}
