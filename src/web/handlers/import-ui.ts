import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { createHash } from 'node:crypto';
import { BULK_BODY_LIMIT, sizeText, UPLOAD_LIMIT, type Upload } from '../../http/body.ts';
import { parseColumnMap, type ColumnMap } from '../../transfer/sources/bitly.ts';
import { SOURCES, type ImportFile, type ImportSource } from '../../transfer/sources.ts';
import type { ImportReport } from '../../transfer/transfer.ts';
import type { PeerSkip } from '../../transfer/sources/peer-link.ts';
import { sendRetryAfter } from '../../http/problems.ts';
import { takeCreations } from '../creation-limit.ts';
import { actorOf, readForm } from '../session.ts';
import { BATCH_MAX } from './links-api.ts';
import { showPage } from './pages.ts';
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import {
  BATCH_FIELDS,
  batchInput,
  formError,
  formFailure,
  formValues,
  shownFields,
  textOf,
  type FormError,
  type FormValues,
} from '../forms.ts';
import { parseOptions } from '../../links/link-options.ts';
import { defuse } from '../../transfer/format.ts';
import { domainOptions } from '../presenters.ts';

/** One line of a bulk submission and what became of it. */
interface LineResult {
  line: number;
  url: string;
  status: 'created' | 'existing' | 'error';
  reason: string | null;
  code: string | null;
  shortUrl: string | null;
}

/** /import: many links at once, one URL per line. */
export function importUiHandlers(web: WebServices) {
  function showImport(
    ctx: Context,
    status: number,
    urls: string,
    batch: FormValues,
    error: FormError | null,
    results: LineResult[] | null,
    upload: UploadForm = { source: 'kurz', map: '', error: null },
  ): void {
    const count = (s: LineResult['status']) => results?.filter((r) => r.status === s).length ?? 0;
    const counts = { created: count('created'), existing: count('existing'), failed: count('error') };
    const shortUrls = results?.flatMap((r) => (r.shortUrl ? [r.shortUrl] : [])) ?? [];
    showPage(ctx, web, status, 'import', {
      title: 'Bulk shorten',
      section: 'import',
      urls,
      form: batch,
      error,
      results,
      counts,
      shortUrls: shortUrls.join('\n'),
      csv: results ? { href: `data:text/csv;charset=utf-8,${encodeURIComponent(resultsCsv(results))}`, name: csvName(new Date()) } : null,
      domains: web.registry.several() ? domainOptions(web, actorOf(ctx)) : null,
      max: BATCH_MAX,
      size: sizeText(BULK_BODY_LIMIT),
      upload: { ...upload, sources: SOURCE_OPTIONS, size: sizeText(UPLOAD_LIMIT) },
    });
  }

  /** The file form again, with what was chosen and why the file was refused. */
  function refuseFile(ctx: Context, err: unknown, source: string, map: string): void {
    const failure = formFailure(err);
    sendRetryAfter(ctx.res, failure);
    showImport(ctx, STATUS[failure.code], '', {}, null, null, { source, map, error: formError(failure, UPLOAD_FIELDS) });
  }

  /** What an import file's page shows: a preview with its confirmation, or what was imported. */
  function showFile(
    ctx: Context,
    file: ImportFile,
    report: ImportReport,
    skips: readonly PeerSkip[],
    notes: string[],
    sealed: Sealed | null,
  ) {
    // A code is shown with its host unless it is on the default domain.
    const address = (code: string, host: string | null) => (code === '' ? null : host === null ? code : `${host}/${code}`);
    const rows = [
      ...skips.map((s) => ({
        line: s.line,
        code: address(s.code ?? '', s.domain === web.registry.defaultHost ? null : s.domain),
        url: s.url ?? '',
        action: 'skip' as const,
        reason: s.reason,
      })),
      ...report.lines.map((l) => ({ ...l, code: address(l.code, l.domain === 0 ? null : web.registry.hostOf(l.domain)) })),
    ].sort((a, b) => a.line - b.line);
    const shown = sealed ? rows.slice(0, PREVIEW_ROWS) : rows.filter((r) => r.action === 'skip');
    showPage(ctx, web, 200, 'import-file', {
      title: sealed ? 'Check the import' : 'Imported',
      section: 'import',
      fileName: file.name,
      source: SOURCE_LABELS[file.source],
      imported: report.imported,
      skipped: report.skipped + skips.length,
      rows: shown,
      more: rows.length - shown.length,
      notes,
      sealed,
    });
  }

  /** The upload's fields, checked: the source, the Bitly column map, the file. Throws AppError naming the field. */
  function uploadOf(form: Record<string, unknown>): ImportFile {
    const source = SOURCES.find((s) => s === form['source']);
    if (source === undefined) throw new AppError('invalid', `source must be one of ${SOURCES.join(', ')}`, 'source');
    const mapText = typeof form['map'] === 'string' ? form['map'].trim() : '';
    if (mapText !== '' && source !== 'bitly') throw new AppError('invalid', 'map is only for a Bitly export: leave it empty', 'map');
    const map: ColumnMap = parseColumnMap(mapText);
    const upload = form['file'] as Upload | string | undefined;
    if (typeof upload !== 'object' || upload.bytes.length === 0)
      throw new AppError('invalid', 'file is required: choose the file to import', 'file');
    // eslint-disable-next-line no-control-regex -- a file name is shown and sealed: no control characters in it
    const name = upload.fileName.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 200) || 'the file';
    return { source, name, bytes: upload.bytes, format: /\.(nd)?jsonl?$/i.test(name) ? 'ndjson' : 'csv', map };
  }

  /** What the seal of a preview covers: who may confirm it, until when, and the file with how it is read. */
  function sealOf(ctx: Context, file: ImportFile, mapText: string, until: number): string {
    const digest = createHash('sha256').update(file.bytes).digest('hex');
    return [actorOf(ctx).userId, until, file.source, mapText, file.name, digest].join('\n');
  }

  return {
    showImport(ctx: Context): void {
      showImport(ctx, 200, '', {}, null, null);
    },

    /**
     * Creates a link for every non-empty line, all at once (the group commit stores them together), each
     * with the batch's tags, domain and expiry, and shows one result per line. The lines that failed are
     * put back in the text area to be fixed. The lines count against the creation limit; over it, the
     * form comes back as it was, with 429.
     */
    async importLinks(ctx: Context): Promise<void> {
      const form = await readForm(ctx, web, BULK_BODY_LIMIT);
      const text = textOf(form, 'urls');
      const batch = formValues(form, BATCH_FIELDS);
      const lines = text
        .split(/\r\n|\r|\n/)
        .map((url, i) => ({ line: i + 1, url: url.trim() }))
        .filter((l) => l.url !== '');
      const refuse = (error: AppError) => {
        const failure = formFailure(error);
        sendRetryAfter(ctx.res, failure);
        showImport(ctx, STATUS[failure.code], text, batch, formError(failure, shownFields(web, ['urls', ...BATCH_FIELDS])), null);
      };
      if (lines.length === 0) return refuse(new AppError('invalid', 'urls must hold at least one URL, one per line', 'urls'));
      if (lines.length > BATCH_MAX)
        return refuse(new AppError('invalid', `urls may hold at most ${BATCH_MAX} URLs, got ${lines.length}`, 'urls'));
      let shared: Record<string, unknown>;
      try {
        // The batch's own options are checked once, beside their fields, rather than failing every line alike.
        shared = batchInput(batch);
        parseOptions(shared, Date.now());
        web.registry.idOf(shared['domain']);
        takeCreations(ctx, web, lines.length);
      } catch (err) {
        return refuse(err as AppError);
      }
      const created = await web.creation.createEach(actorOf(ctx), lines, ({ url }) => ({ ...shared, url }));
      const results = lines.map(({ line, url }, i): LineResult => {
        const result = created[i];
        if (result instanceof AppError || !result)
          return { line, url, status: 'error', reason: result ? formError(result, []).message : null, code: null, shortUrl: null };
        const { link } = result;
        return {
          line,
          url,
          status: result.created ? 'created' : 'existing',
          reason: null,
          code: link.code,
          shortUrl: web.shortUrl(link),
        };
      });
      const failed = results.filter((r) => r.status === 'error').map((r) => r.url);
      showImport(ctx, 200, failed.join('\n'), batch, null, results);
    },

    /**
     * Reads an uploaded file of any source and shows what importing it would do, line by line (a rehearsal of
     * the import itself, stored nowhere), with a confirmation carrying the file and a seal over it. A file
     * that cannot be read brings the form back with the reason.
     */
    async previewFile(ctx: Context): Promise<void> {
      const form = await readForm(ctx, web, UPLOAD_LIMIT, [], ['multipart']);
      const source = typeof form['source'] === 'string' ? form['source'] : 'kurz';
      const mapText = typeof form['map'] === 'string' ? form['map'].trim() : '';
      try {
        const file = uploadOf(form);
        const read = web.transfer.readFile(file);
        const report = await web.transfer.importLinks(actorOf(ctx), read.records, {
          from: file.source === 'kurz' ? 'kurz' : 'peer',
          dryRun: true,
        });
        const until = web.now() + SEAL_MS;
        const sealed: Sealed = {
          source: file.source,
          map: mapText,
          fileName: file.name,
          file: file.bytes.toString('base64url'),
          until,
          seal: web.access.importToken(sealOf(ctx, file, mapText, until)),
        };
        showFile(ctx, file, report, read.skips, read.notes, sealed);
      } catch (err) {
        refuseFile(ctx, err, source, mapText);
      }
    },

    /**
     * Imports the file a preview showed, once its seal holds (the same user, within the hour, the same bytes
     * read the same way), and shows what was imported and what was skipped, and why.
     */
    async importFile(ctx: Context): Promise<void> {
      const form = await readForm(ctx, web, CONFIRM_BODY_LIMIT);
      const source = SOURCES.find((s) => s === form['source']) ?? 'kurz';
      const mapText = typeof form['map'] === 'string' ? form['map'] : '';
      try {
        const until = Number(form['until']);
        const file: ImportFile = {
          source,
          name: typeof form['fileName'] === 'string' ? form['fileName'] : '',
          bytes: Buffer.from(typeof form['file'] === 'string' ? form['file'] : '', 'base64url'),
          format: /\.(nd)?jsonl?$/i.test(String(form['fileName'])) ? 'ndjson' : 'csv',
          map: parseColumnMap(mapText),
        };
        if (!web.access.checkImportToken(sealOf(ctx, file, mapText, until), form['seal']))
          throw new AppError('invalid', 'the preview was changed on its way back: upload the file again', 'file');
        if (!(until > web.now())) throw new AppError('invalid', 'the preview is more than an hour old: upload the file again', 'file');
        const read = web.transfer.readFile(file);
        takeCreations(ctx, web, read.records.length);
        const report = await web.transfer.importLinks(actorOf(ctx), read.records, { from: source === 'kurz' ? 'kurz' : 'peer' });
        showFile(ctx, file, report, read.skips, read.notes, null);
      } catch (err) {
        refuseFile(ctx, err, source, mapText);
      }
    },
  };
}

/** How many lines of a file its preview shows. */
const PREVIEW_ROWS = 50;
/** How long a preview may be confirmed. */
const SEAL_MS = 60 * 60 * 1000;
/** The confirmation's body: the file again (base64url, a third larger) and its few fields. */
const CONFIRM_BODY_LIMIT = Math.ceil((UPLOAD_LIMIT * 4) / 3) + 64 * 1024;

const UPLOAD_FIELDS = ['source', 'map', 'file'];

const SOURCE_LABELS: Record<ImportSource, string> = {
  kurz: 'kurz (its export)',
  yourls: 'YOURLS (mysqldump)',
  shlink: 'Shlink (CSV)',
  kutt: 'Kutt (database or dump)',
  bitly: 'Bitly (CSV export)',
  csv: 'A list of URLs (text or CSV)',
};
const SOURCE_OPTIONS = SOURCES.map((value) => ({ value, label: SOURCE_LABELS[value] }));

/** The file form's state on the import page. */
interface UploadForm {
  source: string;
  map: string;
  error: FormError | null;
}

/** A preview's confirmation form: the file it showed, and the seal that binds them. */
interface Sealed {
  source: ImportSource;
  map: string;
  fileName: string;
  file: string;
  until: number;
  seal: string;
}

/** The results as the page shows them, one CSV line each; cells are safe to open in a spreadsheet. */
function resultsCsv(results: readonly LineResult[]): string {
  return stringifyCsv([
    ['line', 'url', 'result', 'reason', 'short_url'],
    ...results.map((r) => [String(r.line), defuse(r.url), r.status, defuse(r.reason ?? ''), r.shortUrl ?? '']),
  ]);
}

/** kurz-bulk-2026-11-27T1930Z.csv: the time of the batch, in UTC. */
function csvName(at: Date): string {
  return `kurz-bulk-${at.toISOString().slice(0, 16).replace(':', '')}Z.csv`;
}
