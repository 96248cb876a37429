// npm's `preinstall`: one line instead of one EBADENGINE warning per package when the Node that runs npm is older
// than the project needs (docs/dev/toolchain.md, "Node versions"). It runs on that older Node, so: plain CommonJS.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.log(
    `Note: npm runs on Node ${process.versions.node}; AI Workbench needs Node 22.12 or newer, which its node@22 dev dependency ` +
      'provides — use it through npm scripts (npm start, npm test) and npx. The packages\' own engine warnings are hidden ' +
      '(.npmrc, loglevel=error); npm install --loglevel=warn shows them.',
  );
}
