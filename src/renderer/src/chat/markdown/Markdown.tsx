import { memo, useMemo, useState } from 'react';
import type { Token, Tokens } from 'marked';
import { completeBlocks, IncrementalMarkdown } from './markdown-blocks';
import { highlightCode, loadHighlighter, useHighlighterReady } from './highlight';
import { CopyButton } from '../../components/CopyButton';

export interface MarkdownProps {
  text: string;
  /** True while the text still grows: only its last block is parsed again on each change. */
  streaming?: boolean;
}

/**
 * Markdown as React elements (never as HTML: raw HTML in a reply is shown as text). GFM tables, task lists,
 * strikethrough and autolinks; code blocks highlighted, with a copy button.
 */
export function Markdown({ text, streaming = false }: MarkdownProps): React.JSX.Element {
  // One incremental lexer per rendered text: it keeps the finished blocks of the reply as it grows.
  const [incremental] = useState(() => new IncrementalMarkdown());
  const blocks = useMemo(
    () => (streaming ? incremental.update(text, false) : { stable: completeBlocks(text), live: [] as Token[] }),
    [incremental, text, streaming],
  );
  return (
    <div className="markdown">
      {groupsOf(blocks.stable).map((group, index) => (
        <BlockGroup key={index} tokens={group} />
      ))}
      {blocks.live.map((token, index) => (
        <LiveBlock key={`live-${blocks.stable.length + index}`} token={token} />
      ))}
    </div>
  );
}

/**
 * Finished blocks go in groups of GROUP_SIZE: a long reply then has a few dozen children to reconcile and lay out
 * per update instead of hundreds, and a full group never changes again.
 */
const GROUP_SIZE = 16;

function groupsOf(tokens: readonly Token[]): Token[][] {
  const groups: Token[][] = [];
  for (let start = 0; start < tokens.length; start += GROUP_SIZE) groups.push(tokens.slice(start, start + GROUP_SIZE));
  return groups;
}

const BlockGroup = memo(
  function BlockGroup({ tokens }: { tokens: readonly Token[] }): React.JSX.Element {
    return (
      <div className="md-group">
        {tokens.map((token, index) => (
          <Block key={index} token={token} />
        ))}
      </div>
    );
  },
  (before, after) =>
    before.tokens.length === after.tokens.length &&
    before.tokens.every((token, index) => token === after.tokens[index]),
);

const Block = memo(function Block({ token }: { token: Token }): React.ReactNode {
  return renderBlock(token, false);
});

function LiveBlock({ token }: { token: Token }): React.ReactNode {
  return renderBlock(token, true);
}

function renderBlock(token: Token, live: boolean): React.ReactNode {
  switch (token.type) {
    case 'space':
    case 'def':
      return null;
    case 'heading': {
      const heading = token as Tokens.Heading;
      const Tag = `h${Math.min(Math.max(heading.depth, 1), 6)}` as 'h1';
      return <Tag>{inline(heading.tokens)}</Tag>;
    }
    case 'paragraph':
      return <p>{inline((token as Tokens.Paragraph).tokens)}</p>;
    case 'text': {
      const text = token as Tokens.Text;
      return <p>{text.tokens ? inline(text.tokens) : decode(text.text)}</p>;
    }
    case 'code':
      return <CodeBlock code={(token as Tokens.Code).text} language={(token as Tokens.Code).lang} live={live} />;
    case 'blockquote':
      return (
        <blockquote>
          {(token as Tokens.Blockquote).tokens.map((child, index) => (
            <Block key={index} token={child} />
          ))}
        </blockquote>
      );
    case 'hr':
      return <hr />;
    case 'list':
      return <List list={token as Tokens.List} />;
    case 'table':
      return <Table table={token as Tokens.Table} />;
    case 'html':
      return <p className="markdown-raw">{(token as Tokens.HTML).text}</p>;
    default:
      return <p>{token.raw}</p>;
  }
}

function List({ list }: { list: Tokens.List }): React.JSX.Element {
  const items = list.items.map((item, index) => (
    <li key={index} className={item.task ? 'task' : undefined}>
      {item.task && (
        <input
          type="checkbox"
          checked={item.checked ?? false}
          readOnly
          disabled
          aria-label={item.checked ? 'done' : 'not done'}
        />
      )}
      {item.tokens.map((child, childIndex) =>
        // Tight lists put their text straight in the item, not in a paragraph.
        child.type === 'text' && !item.loose ? (
          <span key={childIndex}>
            {(child as Tokens.Text).tokens
              ? inline((child as Tokens.Text).tokens ?? [])
              : decode((child as Tokens.Text).text)}
          </span>
        ) : child.type === 'checkbox' ? null : (
          <Block key={childIndex} token={child} />
        ),
      )}
    </li>
  ));
  return list.ordered ? <ol start={list.start === '' ? undefined : list.start}>{items}</ol> : <ul>{items}</ul>;
}

function Table({ table }: { table: Tokens.Table }): React.JSX.Element {
  const align = (index: number): React.CSSProperties | undefined => {
    const value = table.align[index];
    return value ? { textAlign: value } : undefined;
  };
  return (
    <div className="markdown-table">
      <table>
        <thead>
          <tr>
            {table.header.map((cell, index) => (
              <th key={index} style={align(index)}>
                {inline(cell.tokens)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, rowIndex) => (
            <tr key={rowIndex}>
              {row.map((cell, index) => (
                <td key={index} style={align(index)}>
                  {inline(cell.tokens)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function CodeBlock({
  code,
  language,
  live = false,
}: {
  code: string;
  language?: string | undefined;
  live?: boolean;
}): React.JSX.Element {
  const ready = useHighlighterReady();
  // Plain until highlight.js has loaded (a code block with a language asks for it), highlighted from then on.
  const html = useMemo(() => {
    if (live && code.length > 4_000) return null;
    if (!ready) {
      if (language?.trim()) void loadHighlighter();
      return null;
    }
    return highlightCode(code, language);
  }, [code, language, live, ready]);
  const label = language?.trim().split(/\s/)[0] ?? '';
  return (
    <div className="code-block">
      <div className="code-block-bar">
        <span className="code-block-language">{label || 'text'}</span>
        <CopyButton text={code} label="Copy code" />
      </div>
      {html === null ? (
        <pre>
          <code>{code}</code>
        </pre>
      ) : (
        <pre>
          <code className="hljs" dangerouslySetInnerHTML={{ __html: html }} />
        </pre>
      )}
    </div>
  );
}

function inline(tokens: readonly Token[]): React.ReactNode[] {
  return tokens.map((token, index) => <InlineToken key={index} token={token} />);
}

function InlineToken({ token }: { token: Token }): React.ReactNode {
  switch (token.type) {
    case 'text':
    case 'escape': {
      const text = token as Tokens.Text;
      return text.tokens ? inline(text.tokens) : decode(text.text);
    }
    case 'strong':
      return <strong>{inline((token as Tokens.Strong).tokens)}</strong>;
    case 'em':
      return <em>{inline((token as Tokens.Em).tokens)}</em>;
    case 'del':
      return <del>{inline((token as Tokens.Del).tokens)}</del>;
    case 'codespan':
      return <code className="inline-code">{(token as Tokens.Codespan).text}</code>;
    case 'br':
      return <br />;
    case 'link': {
      const link = token as Tokens.Link;
      const href = safeHref(link.href);
      return href ? (
        <a href={href} title={link.title ?? undefined} target="_blank" rel="noreferrer noopener">
          {inline(link.tokens)}
        </a>
      ) : (
        inline(link.tokens)
      );
    }
    case 'image': {
      // Remote images are not loaded (the CSP refuses them): show the description and the address.
      const image = token as Tokens.Image;
      return (
        <span className="markdown-image">
          [{image.text || 'image'}: {image.href}]
        </span>
      );
    }
    case 'html':
      return (token as Tokens.HTML).text;
    default:
      return token.raw;
  }
}

function safeHref(href: string): string | null {
  return /^(https?:|mailto:)/i.test(href.trim()) ? href : null;
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  '#39': "'",
};

function decode(text: string): string {
  return text.includes('&')
    ? text.replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, name: string) => ENTITIES[name] ?? '')
    : text;
}
