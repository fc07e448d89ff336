/** The `<head>` of mime's pages: UTF-8, no referrer, light and dark, a Content-Security-Policy, the report style. */
import { type Html, html, trustedHtml } from './html.ts';
import { REPORT_CSS } from './report-style.ts';

export function renderHead(title: string, contentSecurityPolicy: string, extraCss = ''): Html {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy}">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>${title}</title>
<style>${trustedHtml(REPORT_CSS + extraCss)}</style>
</head>`;
}
