// The hook entry point that `warrant integrate` wrote before the hook became CommonJS
// (`dist/hook/hook-main.js`): settings written then keep working. Integrate again for the
// faster command (hook-main.cjs, without NODE_EXTRA_CA_CERTS).
import './hook-main.cjs';
