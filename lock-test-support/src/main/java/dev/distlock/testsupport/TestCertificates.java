package dev.distlock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority and a server certificate for {@code 127.0.0.1}/{@code localhost},
 * as PEM files for {@code redis-server --tls-*} and Spring Boot PEM SSL bundles. Made with the
 * JDK's own {@code keytool}, so tests need no {@code openssl} on the machine.
 *
 * @param caCertificate the CA certificate (PEM): the trust anchor clients need
 * @param serverCertificate the server certificate signed by the CA (PEM)
 * @param serverKey the server's private key (PKCS#8 PEM)
 */
public record TestCertificates(Path caCertificate, Path serverCertificate, Path serverKey) {

    private static final String PASSWORD = "changeit";

    private static TestCertificates shared;
    private static Path unknownCa;

    /**
     * One set per JVM, shared by every test class: each keytool run starts a JVM, so generating per
     * class would cost seconds each time. The files live in a temp directory removed at exit.
     */
    public static synchronized TestCertificates shared() {
        if (shared == null) {
            shared = generate(tempDir("distlock-tls-"));
        }
        return shared;
    }

    /** The certificate of another CA, shared per JVM: trusting only it, a client must reject {@link #shared()}'s server. */
    public static synchronized Path unknownCaCertificate() {
        if (unknownCa == null) {
            Path dir = tempDir("distlock-tls-unknown-");
            Path ca = dir.resolve("ca.p12");
            Path pem = dir.resolve("ca.crt");
            generateCa(ca, pem);
            unknownCa = pem;
        }
        return unknownCa;
    }

    /**
     * Generates a fresh CA and a server certificate signed by it into {@code dir}. Each CA gets a
     * unique name, so a second set is a truly unknown CA to clients trusting the first.
     */
    public static TestCertificates generate(Path dir) {
        Path ca = dir.resolve("ca.p12");
        Path server = dir.resolve("server.p12");
        Path csr = dir.resolve("server.csr");
        Path caCert = dir.resolve("ca.crt");
        Path serverCert = dir.resolve("server.crt");
        Path serverKey = dir.resolve("server.key");
        generateCa(ca, caCert);
        keytool(
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "EC",
                "-dname",
                "CN=localhost",
                "-validity",
                "2",
                "-keystore",
                server.toString());
        keytool("-certreq", "-alias", "server", "-keystore", server.toString(), "-file", csr.toString());
        keytool(
                "-gencert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                ca.toString(),
                "-infile",
                csr.toString(),
                "-outfile",
                serverCert.toString(),
                "-ext",
                "san=ip:127.0.0.1,dns:localhost",
                "-ext",
                "eku=serverAuth",
                "-validity",
                "2");
        writePrivateKey(server, serverKey);
        return new TestCertificates(caCert, serverCert, serverKey);
    }

    private static void generateCa(Path keystore, Path pem) {
        keytool(
                "-genkeypair",
                "-alias",
                "ca",
                "-keyalg",
                "EC",
                "-dname",
                "CN=distlock test CA " + java.util.UUID.randomUUID(),
                "-ext",
                "bc:c",
                "-validity",
                "2",
                "-keystore",
                keystore.toString());
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", keystore.toString(), "-file", pem.toString());
    }

    private static Path tempDir(String prefix) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            () -> {
                                try (var files = Files.walk(dir)) {
                                    files.sorted(java.util.Comparator.reverseOrder())
                                            .forEach(f -> f.toFile().delete());
                                } catch (IOException ignored) {
                                    // temp dir; best effort
                                }
                            },
                            "tls-test-cleanup"));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The {@code redis-server} options for a TLS-only listener on {@code tlsPort} with these files. */
    public List<String> redisTlsArgs(int tlsPort) {
        return List.of(
                "--tls-port",
                String.valueOf(tlsPort),
                "--tls-cert-file",
                serverCertificate.toString(),
                "--tls-key-file",
                serverKey.toString(),
                "--tls-ca-cert-file",
                caCertificate.toString(),
                "--tls-auth-clients",
                "no");
    }

    private static void writePrivateKey(Path keystore, Path pem) {
        try (InputStream in = Files.newInputStream(keystore)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, PASSWORD.toCharArray());
            PrivateKey key = (PrivateKey) ks.getKey("server", PASSWORD.toCharArray());
            String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                    .encodeToString(key.getEncoded());
            Files.writeString(pem, "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the generated server key from " + keystore, e);
        }
    }

    private static void keytool(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD, "-noprompt"));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("keytool failed: " + String.join(" ", cmd) + "\n" + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
