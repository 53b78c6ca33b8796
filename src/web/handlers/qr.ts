import type { Context } from 'koa';
import { actorOf } from '../session.ts';
import QRCode from 'qrcode';
import * as z from 'zod';
import type { WebServices } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import type { QuerySchema } from '../../core/request-schema.ts';
import { send } from '../../http/respond.ts';
import { goneMessage } from '../../links/link.ts';
import { domainOf } from '../domain-param.ts';

export const QR_FORMATS = ['svg', 'png'] as const;
export type QrFormat = (typeof QR_FORMATS)[number];

/** Width and height of the image in pixels. */
export const QR_SIZE = { default: 256, min: 64, max: 2048 } as const;

const CONTENT_TYPES: Record<QrFormat, string> = { svg: 'image/svg+xml', png: 'image/png' };

/** Error correction M (15 % of the symbol may be damaged) and a two-module quiet zone. */
const QR_OPTIONS = { errorCorrectionLevel: 'M', margin: 2 } as const;

/** `format` and `size` from the query string. Throws AppError('invalid') naming the parameter. */
function parseQrQuery(query: Record<string, unknown>): { format: QrFormat; size: number } {
  const { format = 'svg', size = String(QR_SIZE.default) } = query;
  if (typeof format !== 'string' || !(QR_FORMATS as readonly string[]).includes(format))
    throw new AppError('invalid', `format must be one of ${QR_FORMATS.join(', ')}`, 'format');
  const pixels = Number(size);
  if (typeof size !== 'string' || !/^\d{1,5}$/.test(size) || pixels < QR_SIZE.min || pixels > QR_SIZE.max)
    throw new AppError('invalid', `size must be a whole number of pixels from ${QR_SIZE.min} to ${QR_SIZE.max}`, 'size');
  return { format: format as QrFormat, size: pixels };
}

/** The QR code's query. */
export const QR_QUERY: QuerySchema<ReturnType<typeof parseQrQuery>> = {
  params: z.object({
    format: z.enum(QR_FORMATS).default('svg').describe('Image format'),
    size: z.int().min(QR_SIZE.min).max(QR_SIZE.max).default(QR_SIZE.default).describe('Width and height in pixels'),
  }),
  parse: parseQrQuery,
};

/** /api/v1/links/CODE/qr */
export function qrHandlers(web: WebServices) {
  return {
    /** The link's short URL (with its own domain) as a QR code, SVG or PNG; a deleted link has none (410). */
    async showQrCode(ctx: Context): Promise<void> {
      const { format, size } = QR_QUERY.parse(ctx.query);
      const code = ctx.params['code'] ?? '';
      const link = await web.links.existingLink(actorOf(ctx), code, domainOf(ctx, web.registry));
      if (link.deletedAt) throw new AppError('gone', goneMessage(code));
      const text = web.shortUrl(link);
      const image =
        format === 'svg'
          ? await QRCode.toString(text, { ...QR_OPTIONS, type: 'svg', width: size })
          : // qrcode floors modules × (width / modules), which floating point can leave a pixel short.
            await QRCode.toBuffer(text, { ...QR_OPTIONS, type: 'png', width: size + 0.5 });
      send(
        ctx.res,
        200,
        {
          'Content-Type': CONTENT_TYPES[format],
          'Content-Disposition': `inline; filename="kurz-${link.code}.${format}"`,
          'X-Content-Type-Options': 'nosniff',
        },
        image,
      );
    },
  };
}
