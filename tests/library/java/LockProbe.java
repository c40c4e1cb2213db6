// The Java reference's lock, taken the reference's way: FileChannel.lock() on the journal.
//   java LockProbe hold FILE   lock the whole file, print "locked", keep it until stdin says anything
//   java LockProbe try FILE    tryLock() once: print "locked" (and release) or "refused"
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

public class LockProbe {
    public static void main(String[] args) throws Exception {
        try (FileChannel channel = FileChannel.open(Paths.get(args[1]),
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            if (args[0].equals("hold")) {
                FileLock lock = channel.lock();
                System.out.println("locked");
                System.out.flush();
                new BufferedReader(new InputStreamReader(System.in)).readLine();
                lock.release();
            } else {
                FileLock lock = channel.tryLock();
                System.out.println(lock == null ? "refused" : "locked");
                if (lock != null) {
                    lock.release();
                }
            }
        }
    }
}
