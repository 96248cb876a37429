/**
 * The only pages a server may ask the person to open (docs/user/server-requests.md, "Open a page"): `http:` and
 * `https:` URLs. `javascript:`, `file:`, `data:` and custom schemes (which hand the address to another program) are
 * refused in the main process before anyone is asked, and neither the card nor the CLI offers to open them.
 */
export function isWebUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.host !== '';
}

/** Why a page's address is refused, in the words of the audit row and the CLI. */
export const NOT_A_WEB_URL = 'the page is not an http(s) address, so it is not offered';
