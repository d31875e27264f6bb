/**
 * Errors salt-api answers with, and the HTML page CherryPy 18.8 renders for them: clients
 * (SaltGUI, pepper) read the status, and people read the `<p>` line.
 */
import { BrineError } from '../core/errors';

export const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  202: 'Accepted',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  406: 'Not Acceptable',
  413: 'Request Entity Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** CherryPy's default message of a status without one of its own. */
const DEFAULT_MESSAGE: Readonly<Record<number, string>> = {
  // CherryPy takes these from Python's http.server table.
  401: 'No permission -- see authorization schemes',
  404: 'Nothing matches the given URI',
  500: 'The server encountered an unexpected condition which prevented it from fulfilling the request.',
  503: 'The server is currently unavailable. Please try again later.',
  504: 'The server did not answer in time.',
};

/** An HTTP error with the message CherryPy would show (cherrypy.HTTPError(status, message)). */
export class HttpError extends BrineError<`HTTP_${number}`> {
  constructor(
    readonly status: number,
    message?: string,
  ) {
    super(`HTTP_${status}`, message ?? DEFAULT_MESSAGE[status] ?? STATUS_TEXT[status] ?? 'Error');
  }
}

/** CherryPy escapes the message as html.escape(quote=False) does. */
function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The HTML error page of CherryPy 18.8.0, byte for byte. */
export function errorPage(status: number, message: string): string {
  const title = `${status} ${STATUS_TEXT[status] ?? 'Error'}`;
  return `<!DOCTYPE html PUBLIC
"-//W3C//DTD XHTML 1.0 Transitional//EN"
"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html>
<head>
    <meta http-equiv="Content-Type" content="text/html; charset=utf-8"></meta>
    <title>${title}</title>
    <style type="text/css">
    #powered_by {
        margin-top: 20px;
        border-top: 2px solid black;
        font-style: italic;
    }

    #traceback {
        color: red;
    }
    </style>
</head>
    <body>
        <h2>${title}</h2>
        <p>${escapeHtml(message)}</p>
        <pre id="traceback"></pre>
    <div id="powered_by">
      <span>
        Powered by <a href="http://www.cherrypy.dev">CherryPy 18.8.0</a>
      </span>
    </div>
    </body>
</html>
`;
}
