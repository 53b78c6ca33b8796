import { formAnswerCsvHeader, formAnswerCsvLine } from '../transfer/form-answer-format.ts';
import { EXIT, type Command } from './command.ts';
import { actorFor, AS_FLAG, DOMAIN_FLAG } from './link-flags.ts';
import { withServices } from './wiring.ts';

/** Answers read from the store at a time. */
const PAGE = 500;

export const answers: Command = {
  summary: "The answers visitors gave a link's form (a page before the redirect): as CSV, newest first, or --delete them all.",
  usage: 'answers CODE [--domain HOST] [--delete] [--as USER]',
  examples: ['kurz answers signup > answers.csv'],
  flags: {
    as: AS_FLAG,
    domain: DOMAIN_FLAG,
    delete: { type: 'boolean', doc: 'delete every answer to the form instead of printing them' },
  },
  positionals: [1, 1],
  run({ values, positionals, config, out }) {
    const code = positionals[0] ?? '';
    return withServices(
      config,
      async (services) => {
        const actor = await actorFor(services, values['as']);
        const domain = services.registry.idOf(values['domain']);
        if (values['delete']) {
          const deleted = await services.links.deleteFormAnswers(actor, code, domain);
          out(`${code}: deleted ${deleted} answer${deleted === 1 ? '' : 's'}\n`);
          return EXIT.ok;
        }
        out(formAnswerCsvHeader());
        let before: number | undefined;
        for (;;) {
          const page = await services.links.formAnswersOf(actor, code, domain, before, PAGE);
          for (const answer of page.answers) out(formAnswerCsvLine(answer.at, answer.answers));
          if (page.answers.length < PAGE) break;
          before = page.answers.at(-1)!.id;
        }
        return EXIT.ok;
      },
      { existing: true },
    );
  },
};
