/**
 * A page's prompt: `bericht_page.prompt`, what a template's page asks for (its note there, e.g.
 * "Verschleißteile, empfohlene Arbeiten, nächste Wartung."). A report made from the template
 * starts with the template's notes as prompts, shown as placeholders, and without notes; the PDF
 * prints only what the technician wrote. Nullable: pages from before have none.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';

export function berichtPagePrompt(_dialect: Dialect, prefix: string) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Only what is missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may be repeated.
      const page = (await db.introspection.getTables()).find((t) => t.name === `${prefix}bericht_page`);
      if (!page?.columns.some((c) => c.name === 'prompt')) await db.schema.alterTable('bericht_page').addColumn('prompt', 'text').execute();
    },
  };
}
