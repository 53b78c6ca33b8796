import { AppError } from '../core/errors.ts';
import { textProblem } from './text-rules.ts';

/**
 * A link's social preview: the card a chat app or a social network shows for the short URL (Open Graph and
 * Twitter tags on a small kurz page that link-preview bots get instead of the redirect). Each part optional.
 */
export interface Preview {
  title: string | null;
  description: string | null;
  /** An absolute http(s) URL of the image. */
  image: string | null;
}

export const PREVIEW_LIMITS = { title: 200, description: 500, image: 2048 } as const;

const PARTS = ['title', 'description', 'image'] as const;

function invalid(field: string, message: string): AppError {
  return new AppError('invalid', `${field} ${message}`, field);
}

/**
 * A preview as the API, a form or an import file gives it: `{title, description, image}`, each optional,
 * trimmed, empty as none; null (or every part empty) is no preview. Throws AppError('invalid') naming
 * `preview.PART`.
 */
export function parsePreview(value: unknown): Preview | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('preview', 'must be an object {title, description, image} or null');
  const input = value as Record<string, unknown>;
  for (const key of Object.keys(input))
    if (!(PARTS as readonly string[]).includes(key)) throw invalid(`preview.${key}`, 'is not a preview field (title, description, image)');
  const preview: Preview = { title: null, description: null, image: null };
  for (const part of PARTS) {
    const given = input[part];
    if (given === undefined || given === null) continue;
    const field = `preview.${part}`;
    if (typeof given !== 'string') throw invalid(field, 'must be a string or null');
    const text = given.trim();
    if (text.length > PREVIEW_LIMITS[part]) throw invalid(field, `must be at most ${PREVIEW_LIMITS[part]} characters`);
    const problem = textProblem(text, part === 'description');
    if (problem) throw invalid(field, problem);
    if (text !== '' && part === 'image') checkImage(text, field);
    preview[part] = text === '' ? null : text;
  }
  return preview.title === null && preview.description === null && preview.image === null ? null : preview;
}

function checkImage(text: string, field: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(field, 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(field, 'must be an absolute http or https URL');
  if (url.username !== '' || url.password !== '') throw invalid(field, 'must not contain a user name or password');
}

/** The stored text of a preview (its JSON), null for none. */
export function storedPreview(preview: Preview | null): string | null {
  return preview === null ? null : JSON.stringify(preview);
}

/** A preview from its stored text (written by storedPreview, so trusted); text that is no preview is none. */
export function previewFromStored(text: string | null): Preview | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<Preview> | null;
    if (value === null || typeof value !== 'object') return null;
    const part = (v: unknown) => (typeof v === 'string' ? v : null);
    return { title: part(value.title), description: part(value.description), image: part(value.image) };
  } catch {
    return null;
  }
}
