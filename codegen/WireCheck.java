// Run by codegen/check.sh on the Java generated from the contract (java -cp ... WireCheck.java): prints
// every RPC of the grpc-java stubs and the bytes of one NewGameRequest, in the same form as the Python
// half of the check, so a Java client is shown to offer the same methods and write the same wire bytes
// as the service's own generated code.

import com.lawspeaker.v1.GameOptions;
import com.lawspeaker.v1.NewGameRequest;
import com.lawspeaker.v1.RulesServiceGrpc;
import com.lawspeaker.v1.SessionServiceGrpc;
import com.lawspeaker.v1.ValhallaOptions;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

public final class WireCheck {
  private WireCheck() {}

  public static void main(String[] args) throws Exception {
    List<String> rpcs = new ArrayList<>();
    for (ServiceDescriptor service :
        List.of(RulesServiceGrpc.getServiceDescriptor(), SessionServiceGrpc.getServiceDescriptor())) {
      for (MethodDescriptor<?, ?> method : service.getMethods()) {
        rpcs.add("rpc " + method.getFullMethodName() + " " + method.getType());
      }
    }
    Collections.sort(rpcs);
    rpcs.forEach(System.out::println);

    NewGameRequest request =
        NewGameRequest.newBuilder()
            .setGame("valhalla")
            .setPlayers(2)
            .setSeed(42)
            .setOptions(
                GameOptions.newBuilder().setValhalla(ValhallaOptions.newBuilder().setDoubles(true)))
            .build();
    byte[] wire = request.toByteArray();
    if (!NewGameRequest.parseFrom(wire).equals(request)) {
      throw new AssertionError("NewGameRequest does not survive its own round trip");
    }
    System.out.println("NewGameRequest " + HexFormat.of().formatHex(wire));
  }
}
