// npm's `preinstall`: one line instead of an EBADENGINE warning per package when the Node that runs it is older than
// the project needs (docs/dev/toolchain.md, "Node versions, said once"). It may run on that older Node: plain CommonJS.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.log(
    `Note: this is Node ${process.versions.node}; AI Workbench needs Node 22.12 or newer. In a checkout, npm scripts ` +
      '(npm start, npm test) and npx run it on the node@22 dev dependency; an installed package needs Node 22.12 on ' +
      "the system. The packages' own engine warnings are hidden (.npmrc, loglevel=error): npm install --loglevel=warn shows them.",
  );
}
