// tgz: a tiny tar+gzip writer for tests that package their own charts (ustar headers; long paths use the ustar
// prefix field, or a GNU long-name record when even that is not enough).
import { gzipSync } from 'node:zlib';

function header(name: string, size: number, type: string, mtime: number): Buffer {
  const h = Buffer.alloc(512);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    if (cut > 0 && Buffer.byteLength(name.slice(cut + 1)) <= 100) {
      prefix = name.slice(0, cut);
      base = name.slice(cut + 1);
    } else {
      base = name.slice(0, 100);
    }
  }
  h.write(base, 0, 100, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(size.toString(8).padStart(11, '0') + '\0', 124);
  h.write(mtime.toString(8).padStart(11, '0') + '\0', 136);
  h.write('        ', 148);
  h.write(type, 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}

function pad(n: number): Buffer {
  return Buffer.alloc((512 - (n % 512)) % 512);
}

/** tar builds an uncompressed tar of files (path → content), in the given order. */
export function tar(files: Record<string, string | Buffer>, { mtime = 0, gnuLongNames = false } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    if (gnuLongNames && Buffer.byteLength(name) > 100) {
      const long = Buffer.from(name + '\0', 'utf8');
      parts.push(header('././@LongLink', long.length, 'L', mtime), long, pad(long.length));
    }
    parts.push(header(name, data.length, '0', mtime), data, pad(data.length));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** tgz is tar + gzip. */
export function tgz(files: Record<string, string | Buffer>, opts?: { mtime?: number; gnuLongNames?: boolean }): Buffer {
  return gzipSync(tar(files, opts));
}

/** chartArchive packages a small chart NAME-VERSION: Chart.yaml, values.yaml and one ConfigMap template. */
export function chartArchive(name: string, version: string, chartYamlExtra = ''): Buffer {
  return tgz({
    [`${name}/Chart.yaml`]: `apiVersion: v2\nname: ${name}\nversion: ${version}\ndescription: ${name} test chart\ntype: application\n${chartYamlExtra}`,
    [`${name}/values.yaml`]: 'greeting: hello\n',
    [`${name}/templates/configmap.yaml`]:
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-{{ .Chart.Name }}\ndata:\n  greeting: {{ .Values.greeting | quote }}\n  version: {{ .Chart.Version | quote }}\n',
  });
}
