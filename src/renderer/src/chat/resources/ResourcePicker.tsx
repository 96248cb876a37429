import { useEffect, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import { errorText } from '../../../../shared/error-data';
import type { McpResourcesOutput } from '../../../../shared/mcp';
import type { ResourceAttachment } from '../../../../shared/messages';
import { Dialog } from '../../components/Dialog';
import { attachmentOf, fillTemplate, templateVariables } from './attachment';

/**
 * Attach a resource (docs/user/mcp-servers.md#resources): the resources and templates of every ready
 * server that offers them; choosing one reads it — the person's own request — and hands it back as an attachment.
 */
export function ResourcePicker({
  api,
  onAttach,
  onClose,
}: {
  api: WorkbenchApi;
  onAttach(attachment: ResourceAttachment): void;
  onClose(): void;
}): React.JSX.Element {
  const [listings, setListings] = useState<McpResourcesOutput[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [reading, setReading] = useState<string | null>(null);
  const [templateValues, setTemplateValues] = useState<Record<string, Record<string, string>>>({});

  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const { servers } = await api.mcp.list();
        const offering = servers.filter(
          (server) => server.status.state === 'ready' && server.status.features?.resources === true,
        );
        const found = await Promise.all(
          offering.map((server) => api.mcp.resources({ name: server.name }).catch(() => null)),
        );
        if (live)
          setListings(
            found.filter(
              (listing): listing is McpResourcesOutput =>
                listing !== null && (listing.resources.length > 0 || listing.templates.length > 0),
            ),
          );
      } catch (error) {
        if (live) setProblem(errorText(error));
      }
    })();
    return () => {
      live = false;
    };
  }, [api]);

  const attach = async (server: string, uri: string, name: string): Promise<void> => {
    setReading(uri);
    setProblem(null);
    try {
      onAttach(attachmentOf(server, name, await api.mcp.readResource({ name: server, uri })));
      onClose();
    } catch (error) {
      setProblem(errorText(error));
    } finally {
      setReading(null);
    }
  };

  return (
    <Dialog
      title="Attach a resource"
      className="dialog resource-picker"
      testId="resource-picker"
      onClose={onClose}
      actions={
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
      }
    >
      <p className="muted small">
        Its contents go to the model with your next message, after your words. Only what you pick here is read.
      </p>
      {problem && (
        <p className="field-problem" role="alert">
          {problem}
        </p>
      )}
      {listings === null && !problem && <p className="muted">Asking the servers for their resources…</p>}
      {listings !== null && listings.length === 0 && <p className="muted">No ready MCP server offers resources.</p>}
      {listings?.map((listing) => (
        <section key={listing.name} className="resource-server" aria-label={`Resources of ${listing.name}`}>
          <h3>{listing.name}</h3>
          <ul className="resource-list">
            {listing.resources.map((resource) => (
              <li key={resource.uri}>
                <button
                  type="button"
                  className="resource-choice"
                  disabled={reading !== null}
                  onClick={() => void attach(listing.name, resource.uri, resource.title ?? resource.name)}
                >
                  <span className="resource-name">{resource.title ?? resource.name}</span>
                  <span className="resource-uri">{resource.uri}</span>
                  {reading === resource.uri && <span className="muted small"> reading…</span>}
                </button>
              </li>
            ))}
          </ul>
          {listing.templates.map((template) => {
            const key = `${listing.name}\u0000${template.uriTemplate}`;
            const values = templateValues[key] ?? {};
            const variables = templateVariables(template.uriTemplate);
            const uri = fillTemplate(template.uriTemplate, values);
            return (
              <form
                key={template.uriTemplate}
                className="resource-template"
                aria-label={`Template ${template.title ?? template.name}`}
                onSubmit={(event) => {
                  event.preventDefault();
                  void attach(
                    listing.name,
                    uri,
                    `${template.title ?? template.name} (${variables.map((variable) => values[variable] ?? '').join(', ')})`,
                  );
                }}
              >
                <span className="resource-name">{template.title ?? template.name}</span>
                <span className="resource-uri">{template.uriTemplate}</span>
                {variables.map((variable) => (
                  <label key={variable} className="resource-variable">
                    <span>{variable}</span>
                    <input
                      value={values[variable] ?? ''}
                      required
                      onChange={(event) =>
                        setTemplateValues((current) => ({
                          ...current,
                          [key]: { ...values, [variable]: event.target.value },
                        }))
                      }
                    />
                  </label>
                ))}
                <button
                  type="submit"
                  className="button"
                  disabled={reading !== null || variables.some((variable) => (values[variable] ?? '').trim() === '')}
                >
                  Attach
                </button>
              </form>
            );
          })}
        </section>
      ))}
    </Dialog>
  );
}
