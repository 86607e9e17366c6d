/**
 * A report's mail in the customer's language: subject and text from a template (BERICHT_MAIL_SUBJECT
 * and BERICHT_MAIL_TEXT, `_EN` for English, or the texts below) with Dolibarr-style substitutions:
 *
 * | key | value |
 * |---|---|
 * | `__REF__` | the report's ref (BR2611-0001) |
 * | `__REPORT_TITLE__` | the report's title |
 * | `__ORDER_REF__` | the order's (invoice's, proposal's) ref |
 * | `__REF_CLIENT__` | the customer's own reference of it |
 * | `__THIRDPARTY_NAME__` | the customer's name |
 * | `__MYCOMPANY_NAME__` | the company's name (MAIN_INFO_SOCIETE_NOM) |
 * | `__USER_FULLNAME__` | the technician who sends it |
 * | `__CHECK_URL__` | the public check link of the report's signature (empty when unsigned) |
 *
 * A key that is not known stays as it is, as in Dolibarr.
 */
import type { PdfLanguage } from '../../adapters/pdf/words.js';

export const SUBSTITUTION_KEYS = [
  '__REF__',
  '__REPORT_TITLE__',
  '__ORDER_REF__',
  '__REF_CLIENT__',
  '__THIRDPARTY_NAME__',
  '__MYCOMPANY_NAME__',
  '__USER_FULLNAME__',
  '__CHECK_URL__',
] as const;
export type Substitutions = Record<(typeof SUBSTITUTION_KEYS)[number], string>;

/** The built-in texts: greeting, body and closing, with the check link's line between when there is one. */
const DEFAULTS: Record<PdfLanguage, { subject: string; yourOrder: string; body: string[]; check: string; closing: string[] }> = {
  de: {
    subject: 'Bericht __REF__ zu __ORDER_REF__',
    yourOrder: ' (Ihre Bestellung __REF_CLIENT__)',
    body: ['Guten Tag,', '', 'anbei erhalten Sie den Bericht __REF__ „__REPORT_TITLE__“ zu __ORDER_REF__ als PDF.'],
    check: 'Die Unterschrift prüfen Sie hier: __CHECK_URL__',
    closing: ['Mit freundlichen Grüßen', '__USER_FULLNAME__', '__MYCOMPANY_NAME__'],
  },
  en: {
    subject: 'Report __REF__ for __ORDER_REF__',
    yourOrder: ' (your order __REF_CLIENT__)',
    body: ['Hello,', '', 'please find attached the report __REF__ "__REPORT_TITLE__" for __ORDER_REF__ as a PDF.'],
    check: 'You can check the signature here: __CHECK_URL__',
    closing: ['Kind regards', '__USER_FULLNAME__', '__MYCOMPANY_NAME__'],
  },
};

export function substitute(template: string, values: Substitutions): string {
  return template.replace(/__[A-Z_]+__/g, (key) => (key in values ? values[key as keyof Substitutions] : key));
}

/**
 * Subject and text of a report's mail. The built-in text names the check link when the report has
 * one, and the built-in subject the customer's own order number when the order has one (the
 * customer files the mail by it); a template of the setup does so where it says `__CHECK_URL__` and
 * `__REF_CLIENT__`.
 */
export function mailText(
  language: PdfLanguage,
  templates: { subject?: string; text?: string },
  values: Substitutions,
): { subject: string; text: string } {
  const d = DEFAULTS[language];
  const text = templates.text ?? [...d.body, '', ...(values.__CHECK_URL__ ? [d.check, ''] : []), ...d.closing].join('\n');
  // A subject is one line: a line break would start a header of its own.
  return {
    subject: substitute(templates.subject ?? `${d.subject}${values.__REF_CLIENT__.trim() ? d.yourOrder : ''}`, values)
      .replace(/[\r\n]+/g, ' ')
      .trim(),
    text: substitute(text, values),
  };
}
