// grpcWebMethod makes grpc-web's MethodDescriptor for a method of a
// service that protoc-gen-es generated: its path, /pkg.Service/Method,
// and its messages' binary codec. (protoc-gen-grpc-web, which generates
// them for google-protobuf messages, is a binary download; this needs
// only npm packages.) A client-streaming or bidirectional method is an
// error: grpc-web has neither.
import { fromBinary, toBinary, type DescMessage, type DescMethod, type MessageShape } from "@bufbuild/protobuf";
import { MethodDescriptor, MethodType } from "grpc-web";

export function grpcWebMethod<I extends DescMessage, O extends DescMessage>(
  method: DescMethod & { input: I; output: O },
): MethodDescriptor<MessageShape<I>, MessageShape<O>> {
  const kinds: Record<string, string> = { unary: MethodType.UNARY, server_streaming: MethodType.SERVER_STREAMING };
  const kind = kinds[method.methodKind];
  if (kind === undefined) {
    throw new Error(`${method}: grpc-web calls only unary and server-streaming methods`);
  }
  // grpc-web calls no constructor of its own; the codec makes the messages.
  const shape = Object as unknown as new () => never;
  return new MethodDescriptor(
    `/${method.parent.typeName}/${method.name}`,
    kind,
    shape,
    shape,
    (m: MessageShape<I>) => toBinary(method.input, m),
    (b: Uint8Array) => fromBinary(method.output, b),
  );
}
