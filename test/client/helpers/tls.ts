import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface Certificate {
  keyFile: string;
  certFile: string;
  key: string;
  cert: string;
}

/** A self-signed certificate for 127.0.0.1 and localhost, valid one day, written by openssl into `dir`. */
export function selfSignedCertificate(dir: string): Certificate {
  const keyFile = join(dir, "key.pem");
  const certFile = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyFile, "-out", certFile],
      ...["-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
    ],
    { stdio: "ignore" },
  );
  return { keyFile, certFile, key: readFileSync(keyFile, "utf8"), cert: readFileSync(certFile, "utf8") };
}
