// The Electron app's entry: everything that needs `electron` lives in ./electron.
import './electron/main';
