import * as esbuild from 'esbuild';
const r = await esbuild.build({ entryPoints: [process.argv[2]], bundle: true, platform: 'node', format: 'cjs', target: 'node22', minify: true, mainFields: ['module','main'], external: ['@aws-sdk/*'], metafile: true, write: false, outfile: '/tmp/x.js', logLevel: 'error', define: {'process.env.WF_MODEL_PROVIDER': '"anthropic"', 'process.env.WF_TRACING': '"invocations"'} });
const out = Object.values(r.metafile.outputs)[0];
for (const [f, v] of Object.entries(out.inputs).filter(([f])=>!f.includes('node_modules')).sort((a,b)=>b[1].bytesInOutput-a[1].bytesInOutput)) console.log(String(v.bytesInOutput).padStart(7), f);
