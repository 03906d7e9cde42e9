// Runs mongo-java-server (a MongoDB wire-protocol server) as a process for the local dev stack;
// the library ships no main class. Run in source-file mode by src/mongo-process.ts:
//   java -cp '<lib>/*' MongoServerMain.java --host 127.0.0.1 --port N [--h2 <file>]
// Without --h2 the data lives in memory and is gone when the process ends.

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

import java.util.List;
import java.util.concurrent.CountDownLatch;

public class MongoServerMain {
    // The library reports wire version 8 at most; the Node driver 7 refuses servers below 9
    // (MongoDB 4.4). The version is only reported in the handshake, so claim 4.4.
    static final MongoVersion REPORTED_VERSION = new MongoVersion() {
        @Override public List<Integer> getVersionArray() { return List.of(4, 4, 0); }
        @Override public int getWireVersion() { return 9; }
    };

    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = 0;
        String h2File = null;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--host" -> { host = value; i++; }
                case "--port" -> { port = Integer.parseInt(value); i++; }
                case "--h2" -> { h2File = value; i++; }
                default -> {
                    System.err.println("unknown argument: " + args[i]);
                    System.exit(2);
                }
            }
        }

        MongoBackend backend = (h2File != null ? new H2Backend(h2File) : new MemoryBackend())
            .version(REPORTED_VERSION);
        MongoServer server = new MongoServer(backend);
        server.bind(host, port);

        CountDownLatch stopped = new CountDownLatch(1);
        // SIGTERM runs this: closing the server also closes the backend, which commits the H2 file.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("MongoServerMain stopping");
            server.shutdown();
            stopped.countDown();
        }));

        System.out.println("MongoServerMain ready on " + server.getLocalAddress().getHostString() + ":"
            + server.getLocalAddress().getPort() + " (" + (h2File != null ? "h2 " + h2File : "memory") + ")");
        System.out.flush();
        stopped.await();
    }
}
