/** The product's name, in window titles, folders and the MCP client's `clientInfo`. Kept apart from `app.ts` (and its schemas) so the CLI's quick paths load no zod. */
export const APP_NAME = 'AI Workbench';
