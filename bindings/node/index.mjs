// flatjoin for Node.js, as an ES module: the same functions as index.js (one implementation; the
// package's `exports` map sends `import` here and `require` there).
import flatjoin from './index.js';

export const {
  FlatjoinError,
  flatten,
  flattenManifest,
  validate,
  Validator,
  lint,
  exportTools,
  flattenAsync,
  flattenManifestAsync,
  exportToolsAsync,
  version,
} = flatjoin;
export default flatjoin;
