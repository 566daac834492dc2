module attributes {graph.model_name = "main_graph", graph.opset = 17 : i64} {
  func.func @main(%arg0: tensor<32x128xi64> {graph.name = "input_ids"}, %arg1: tensor<32x128xi64> {graph.name = "attention_mask"}) -> (tensor<32x128x768xf16> {graph.name = "last_hidden_state"}, tensor<32x768xf16> {graph.name = "pooler_output"}) {
    %0 = graph.constant dense_resource<folded_11> : tensor<768x2304xf16>
    %1 = graph.constant dense_resource<folded_10> : tensor<768x2304xf16>
    %2 = graph.constant dense_resource<folded_9> : tensor<768x2304xf16>
    %3 = graph.constant dense_resource<folded_8> : tensor<768x2304xf16>
    %4 = graph.constant dense_resource<folded_7> : tensor<768x2304xf16>
    %5 = graph.constant dense_resource<folded_6> : tensor<768x2304xf16>
    %6 = graph.constant dense_resource<folded_5> : tensor<768x2304xf16>
    %7 = graph.constant dense_resource<folded_4> : tensor<768x2304xf16>
    %8 = graph.constant dense_resource<folded_3> : tensor<768x2304xf16>
    %9 = graph.constant dense_resource<folded_2> : tensor<768x2304xf16>
    %10 = graph.constant dense_resource<folded_1> : tensor<768x2304xf16>
    %11 = graph.constant dense<0.000000e+00> : tensor<2304xf16>
    %12 = graph.constant dense_resource<folded> : tensor<768x2304xf16>
    %13 = graph.constant dense_resource<w__inner_embeddings_position_embeddings_Gather> : tensor<1x128x768xf16>
    %14 = graph.constant dense<-6.550400e+04> : tensor<f16>
    %15 = graph.constant dense<0.000000e+00> : tensor<f16>
    %16 = graph.constant dense_resource<w__inner_Add> : tensor<32x1x1x128xi64>
    %17 = graph.constant dense_resource<inner.embeddings.word_embeddings.weight> : tensor<30522x768xf16>
    %18 = graph.constant dense_resource<inner.embeddings.token_type_embeddings.weight> : tensor<2x768xf16>
    %19 = graph.constant dense_resource<inner.embeddings.LayerNorm.weight> : tensor<768xf16>
    %20 = graph.constant dense_resource<inner.embeddings.LayerNorm.bias> : tensor<768xf16>
    %21 = graph.constant dense_resource<inner.encoder.layer.0.intermediate.dense.bias> : tensor<3072xf16>
    %22 = graph.constant dense_resource<inner.pooler.dense.weight> : tensor<768x768xf16>
    %23 = graph.constant dense_resource<onnx__MatMul_1294> : tensor<768x768xf16>
    %24 = graph.constant dense_resource<onnx__MatMul_1295> : tensor<768x3072xf16>
    %25 = graph.constant dense_resource<onnx__MatMul_1296> : tensor<3072x768xf16>
    %26 = graph.constant dense_resource<onnx__MatMul_1319> : tensor<768x768xf16>
    %27 = graph.constant dense_resource<onnx__MatMul_1320> : tensor<768x3072xf16>
    %28 = graph.constant dense_resource<onnx__MatMul_1321> : tensor<3072x768xf16>
    %29 = graph.constant dense_resource<onnx__MatMul_1344> : tensor<768x768xf16>
    %30 = graph.constant dense_resource<onnx__MatMul_1345> : tensor<768x3072xf16>
    %31 = graph.constant dense_resource<onnx__MatMul_1346> : tensor<3072x768xf16>
    %32 = graph.constant dense_resource<onnx__MatMul_1369> : tensor<768x768xf16>
    %33 = graph.constant dense_resource<onnx__MatMul_1370> : tensor<768x3072xf16>
    %34 = graph.constant dense_resource<onnx__MatMul_1371> : tensor<3072x768xf16>
    %35 = graph.constant dense_resource<onnx__MatMul_1394> : tensor<768x768xf16>
    %36 = graph.constant dense_resource<onnx__MatMul_1395> : tensor<768x3072xf16>
    %37 = graph.constant dense_resource<onnx__MatMul_1396> : tensor<3072x768xf16>
    %38 = graph.constant dense_resource<onnx__MatMul_1419> : tensor<768x768xf16>
    %39 = graph.constant dense_resource<onnx__MatMul_1420> : tensor<768x3072xf16>
    %40 = graph.constant dense_resource<onnx__MatMul_1421> : tensor<3072x768xf16>
    %41 = graph.constant dense_resource<onnx__MatMul_1444> : tensor<768x768xf16>
    %42 = graph.constant dense_resource<onnx__MatMul_1445> : tensor<768x3072xf16>
    %43 = graph.constant dense_resource<onnx__MatMul_1446> : tensor<3072x768xf16>
    %44 = graph.constant dense_resource<onnx__MatMul_1469> : tensor<768x768xf16>
    %45 = graph.constant dense_resource<onnx__MatMul_1470> : tensor<768x3072xf16>
    %46 = graph.constant dense_resource<onnx__MatMul_1471> : tensor<3072x768xf16>
    %47 = graph.constant dense_resource<onnx__MatMul_1494> : tensor<768x768xf16>
    %48 = graph.constant dense_resource<onnx__MatMul_1495> : tensor<768x3072xf16>
    %49 = graph.constant dense_resource<onnx__MatMul_1496> : tensor<3072x768xf16>
    %50 = graph.constant dense_resource<onnx__MatMul_1519> : tensor<768x768xf16>
    %51 = graph.constant dense_resource<onnx__MatMul_1520> : tensor<768x3072xf16>
    %52 = graph.constant dense_resource<onnx__MatMul_1521> : tensor<3072x768xf16>
    %53 = graph.constant dense_resource<onnx__MatMul_1544> : tensor<768x768xf16>
    %54 = graph.constant dense_resource<onnx__MatMul_1545> : tensor<768x3072xf16>
    %55 = graph.constant dense_resource<onnx__MatMul_1546> : tensor<3072x768xf16>
    %56 = graph.constant dense_resource<onnx__MatMul_1569> : tensor<768x768xf16>
    %57 = graph.constant dense_resource<onnx__MatMul_1570> : tensor<768x3072xf16>
    %58 = graph.constant dense_resource<onnx__MatMul_1571> : tensor<3072x768xf16>
    %59 = graph.constant dense<0> : tensor<i64>
    %60 = graph.constant dense<0> : tensor<32x128xi64>
    %61 = graph.gather %17, %arg0 {axis = 0 : i64} : tensor<30522x768xf16>, tensor<32x128xi64> -> tensor<32x128x768xf16>
    %62 = graph.gather %18, %60 {axis = 0 : i64} : tensor<2x768xf16>, tensor<32x128xi64> -> tensor<32x128x768xf16>
    %63 = graph.fusion "elementwise"(%61, %62, %13) : (tensor<32x128x768xf16>, tensor<32x128x768xf16>, tensor<1x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<32x128x768xf16>, %arg4: tensor<1x128x768xf16>):
      %205 = graph.add %arg2, %arg3 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x768xf16>, tensor<1x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %206 : tensor<32x128x768xf16>
    }
    %64 = graph.layer_norm %63, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %65 = graph.cast %arg1 : tensor<32x128xi64> -> tensor<32x128xi1>
    %66 = graph.reshape %65 : tensor<32x128xi1> -> tensor<4096x1xi1>
    %67 = graph.gather %66, %16 {axis = 0 : i64} : tensor<4096x1xi1>, tensor<32x1x1x128xi64> -> tensor<32x1x1x128x1xi1>
    %68 = graph.reshape %67 : tensor<32x1x1x128x1xi1> -> tensor<32x1x1x128xi1>
    %69 = graph.where %68, %15, %14 : tensor<32x1x1x128xi1>, tensor<f16>, tensor<f16> -> tensor<32x1x1x128xf16>
    %70 = graph.fusion "matmul"(%64, %12, %11) : (tensor<32x128x768xf16>, tensor<768x2304xf16>, tensor<2304xf16>) -> tensor<32x128x2304xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x2304xf16>, %arg4: tensor<2304xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x2304xf16> -> tensor<32x128x2304xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x2304xf16>, tensor<2304xf16> -> tensor<32x128x2304xf16>
      graph.yield %206 : tensor<32x128x2304xf16>
    }
    %71 = graph.reshape %70 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %72 = graph.reshape %70 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %73 = graph.reshape %70 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %74 = graph.attention %73, %72, %71, %69 {k_heads = array<i64: 12, 12>, k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_heads = array<i64: 0, 12>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_heads = array<i64: 24, 12>, v_perm = array<i64: 0, 2, 1, 3>} : tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x1x1x128xf16> -> tensor<32x128x12x64xf16>
    %75 = graph.reshape %74 : tensor<32x128x12x64xf16> -> tensor<32x128x768xf16>
    %76 = graph.fusion "matmul"(%75, %23, %20, %64) : (tensor<32x128x768xf16>, tensor<768x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %77 = graph.layer_norm %76, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %78 = graph.fusion "matmul"(%77, %24, %21) : (tensor<32x128x768xf16>, tensor<768x3072xf16>, tensor<3072xf16>) -> tensor<32x128x3072xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x3072xf16>, %arg4: tensor<3072xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x3072xf16> -> tensor<32x128x3072xf16>
      %206 = graph.add %arg4, %205 : tensor<3072xf16>, tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      %207 = graph.gelu %206 : tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      graph.yield %207 : tensor<32x128x3072xf16>
    }
    %79 = graph.fusion "matmul"(%78, %25, %20, %77) : (tensor<32x128x3072xf16>, tensor<3072x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x3072xf16>, %arg3: tensor<3072x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x3072xf16>, tensor<3072x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %80 = graph.layer_norm %79, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %81 = graph.fusion "matmul"(%80, %10, %11) : (tensor<32x128x768xf16>, tensor<768x2304xf16>, tensor<2304xf16>) -> tensor<32x128x2304xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x2304xf16>, %arg4: tensor<2304xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x2304xf16> -> tensor<32x128x2304xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x2304xf16>, tensor<2304xf16> -> tensor<32x128x2304xf16>
      graph.yield %206 : tensor<32x128x2304xf16>
    }
    %82 = graph.reshape %81 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %83 = graph.reshape %81 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %84 = graph.reshape %81 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %85 = graph.attention %84, %83, %82, %69 {k_heads = array<i64: 12, 12>, k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_heads = array<i64: 0, 12>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_heads = array<i64: 24, 12>, v_perm = array<i64: 0, 2, 1, 3>} : tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x1x1x128xf16> -> tensor<32x128x12x64xf16>
    %86 = graph.reshape %85 : tensor<32x128x12x64xf16> -> tensor<32x128x768xf16>
    %87 = graph.fusion "matmul"(%86, %26, %20, %80) : (tensor<32x128x768xf16>, tensor<768x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %88 = graph.layer_norm %87, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %89 = graph.fusion "matmul"(%88, %27, %21) : (tensor<32x128x768xf16>, tensor<768x3072xf16>, tensor<3072xf16>) -> tensor<32x128x3072xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x3072xf16>, %arg4: tensor<3072xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x3072xf16> -> tensor<32x128x3072xf16>
      %206 = graph.add %arg4, %205 : tensor<3072xf16>, tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      %207 = graph.gelu %206 : tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      graph.yield %207 : tensor<32x128x3072xf16>
    }
    %90 = graph.fusion "matmul"(%89, %28, %20, %88) : (tensor<32x128x3072xf16>, tensor<3072x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x3072xf16>, %arg3: tensor<3072x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x3072xf16>, tensor<3072x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %91 = graph.layer_norm %90, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %92 = graph.fusion "matmul"(%91, %9, %11) : (tensor<32x128x768xf16>, tensor<768x2304xf16>, tensor<2304xf16>) -> tensor<32x128x2304xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x2304xf16>, %arg4: tensor<2304xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x2304xf16> -> tensor<32x128x2304xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x2304xf16>, tensor<2304xf16> -> tensor<32x128x2304xf16>
      graph.yield %206 : tensor<32x128x2304xf16>
    }
    %93 = graph.reshape %92 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %94 = graph.reshape %92 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %95 = graph.reshape %92 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %96 = graph.attention %95, %94, %93, %69 {k_heads = array<i64: 12, 12>, k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_heads = array<i64: 0, 12>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_heads = array<i64: 24, 12>, v_perm = array<i64: 0, 2, 1, 3>} : tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x1x1x128xf16> -> tensor<32x128x12x64xf16>
    %97 = graph.reshape %96 : tensor<32x128x12x64xf16> -> tensor<32x128x768xf16>
    %98 = graph.fusion "matmul"(%97, %29, %20, %91) : (tensor<32x128x768xf16>, tensor<768x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %99 = graph.layer_norm %98, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %100 = graph.fusion "matmul"(%99, %30, %21) : (tensor<32x128x768xf16>, tensor<768x3072xf16>, tensor<3072xf16>) -> tensor<32x128x3072xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x3072xf16>, %arg4: tensor<3072xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x3072xf16> -> tensor<32x128x3072xf16>
      %206 = graph.add %arg4, %205 : tensor<3072xf16>, tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      %207 = graph.gelu %206 : tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      graph.yield %207 : tensor<32x128x3072xf16>
    }
    %101 = graph.fusion "matmul"(%100, %31, %20, %99) : (tensor<32x128x3072xf16>, tensor<3072x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x3072xf16>, %arg3: tensor<3072x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x3072xf16>, tensor<3072x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %102 = graph.layer_norm %101, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %103 = graph.fusion "matmul"(%102, %8, %11) : (tensor<32x128x768xf16>, tensor<768x2304xf16>, tensor<2304xf16>) -> tensor<32x128x2304xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x2304xf16>, %arg4: tensor<2304xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x2304xf16> -> tensor<32x128x2304xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x2304xf16>, tensor<2304xf16> -> tensor<32x128x2304xf16>
      graph.yield %206 : tensor<32x128x2304xf16>
    }
    %104 = graph.reshape %103 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %105 = graph.reshape %103 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %106 = graph.reshape %103 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %107 = graph.attention %106, %105, %104, %69 {k_heads = array<i64: 12, 12>, k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_heads = array<i64: 0, 12>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_heads = array<i64: 24, 12>, v_perm = array<i64: 0, 2, 1, 3>} : tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x1x1x128xf16> -> tensor<32x128x12x64xf16>
    %108 = graph.reshape %107 : tensor<32x128x12x64xf16> -> tensor<32x128x768xf16>
    %109 = graph.fusion "matmul"(%108, %32, %20, %102) : (tensor<32x128x768xf16>, tensor<768x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %110 = graph.layer_norm %109, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %111 = graph.fusion "matmul"(%110, %33, %21) : (tensor<32x128x768xf16>, tensor<768x3072xf16>, tensor<3072xf16>) -> tensor<32x128x3072xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x3072xf16>, %arg4: tensor<3072xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x3072xf16> -> tensor<32x128x3072xf16>
      %206 = graph.add %arg4, %205 : tensor<3072xf16>, tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      %207 = graph.gelu %206 : tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      graph.yield %207 : tensor<32x128x3072xf16>
    }
    %112 = graph.fusion "matmul"(%111, %34, %20, %110) : (tensor<32x128x3072xf16>, tensor<3072x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x3072xf16>, %arg3: tensor<3072x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x3072xf16>, tensor<3072x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %113 = graph.layer_norm %112, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %114 = graph.fusion "matmul"(%113, %7, %11) : (tensor<32x128x768xf16>, tensor<768x2304xf16>, tensor<2304xf16>) -> tensor<32x128x2304xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x2304xf16>, %arg4: tensor<2304xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x2304xf16> -> tensor<32x128x2304xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x2304xf16>, tensor<2304xf16> -> tensor<32x128x2304xf16>
      graph.yield %206 : tensor<32x128x2304xf16>
    }
    %115 = graph.reshape %114 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %116 = graph.reshape %114 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %117 = graph.reshape %114 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %118 = graph.attention %117, %116, %115, %69 {k_heads = array<i64: 12, 12>, k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_heads = array<i64: 0, 12>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_heads = array<i64: 24, 12>, v_perm = array<i64: 0, 2, 1, 3>} : tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x1x1x128xf16> -> tensor<32x128x12x64xf16>
    %119 = graph.reshape %118 : tensor<32x128x12x64xf16> -> tensor<32x128x768xf16>
    %120 = graph.fusion "matmul"(%119, %35, %20, %113) : (tensor<32x128x768xf16>, tensor<768x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %121 = graph.layer_norm %120, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %122 = graph.fusion "matmul"(%121, %36, %21) : (tensor<32x128x768xf16>, tensor<768x3072xf16>, tensor<3072xf16>) -> tensor<32x128x3072xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x3072xf16>, %arg4: tensor<3072xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x3072xf16> -> tensor<32x128x3072xf16>
      %206 = graph.add %arg4, %205 : tensor<3072xf16>, tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      %207 = graph.gelu %206 : tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      graph.yield %207 : tensor<32x128x3072xf16>
    }
    %123 = graph.fusion "matmul"(%122, %37, %20, %121) : (tensor<32x128x3072xf16>, tensor<3072x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x3072xf16>, %arg3: tensor<3072x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x3072xf16>, tensor<3072x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %124 = graph.layer_norm %123, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %125 = graph.fusion "matmul"(%124, %6, %11) : (tensor<32x128x768xf16>, tensor<768x2304xf16>, tensor<2304xf16>) -> tensor<32x128x2304xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x2304xf16>, %arg4: tensor<2304xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x2304xf16> -> tensor<32x128x2304xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x2304xf16>, tensor<2304xf16> -> tensor<32x128x2304xf16>
      graph.yield %206 : tensor<32x128x2304xf16>
    }
    %126 = graph.reshape %125 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %127 = graph.reshape %125 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %128 = graph.reshape %125 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %129 = graph.attention %128, %127, %126, %69 {k_heads = array<i64: 12, 12>, k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_heads = array<i64: 0, 12>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_heads = array<i64: 24, 12>, v_perm = array<i64: 0, 2, 1, 3>} : tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x1x1x128xf16> -> tensor<32x128x12x64xf16>
    %130 = graph.reshape %129 : tensor<32x128x12x64xf16> -> tensor<32x128x768xf16>
    %131 = graph.fusion "matmul"(%130, %38, %20, %124) : (tensor<32x128x768xf16>, tensor<768x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %132 = graph.layer_norm %131, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %133 = graph.fusion "matmul"(%132, %39, %21) : (tensor<32x128x768xf16>, tensor<768x3072xf16>, tensor<3072xf16>) -> tensor<32x128x3072xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x3072xf16>, %arg4: tensor<3072xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x3072xf16> -> tensor<32x128x3072xf16>
      %206 = graph.add %arg4, %205 : tensor<3072xf16>, tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      %207 = graph.gelu %206 : tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      graph.yield %207 : tensor<32x128x3072xf16>
    }
    %134 = graph.fusion "matmul"(%133, %40, %20, %132) : (tensor<32x128x3072xf16>, tensor<3072x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x3072xf16>, %arg3: tensor<3072x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x3072xf16>, tensor<3072x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %135 = graph.layer_norm %134, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %136 = graph.fusion "matmul"(%135, %5, %11) : (tensor<32x128x768xf16>, tensor<768x2304xf16>, tensor<2304xf16>) -> tensor<32x128x2304xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x2304xf16>, %arg4: tensor<2304xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x2304xf16> -> tensor<32x128x2304xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x2304xf16>, tensor<2304xf16> -> tensor<32x128x2304xf16>
      graph.yield %206 : tensor<32x128x2304xf16>
    }
    %137 = graph.reshape %136 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %138 = graph.reshape %136 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %139 = graph.reshape %136 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %140 = graph.attention %139, %138, %137, %69 {k_heads = array<i64: 12, 12>, k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_heads = array<i64: 0, 12>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_heads = array<i64: 24, 12>, v_perm = array<i64: 0, 2, 1, 3>} : tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x1x1x128xf16> -> tensor<32x128x12x64xf16>
    %141 = graph.reshape %140 : tensor<32x128x12x64xf16> -> tensor<32x128x768xf16>
    %142 = graph.fusion "matmul"(%141, %41, %20, %135) : (tensor<32x128x768xf16>, tensor<768x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %143 = graph.layer_norm %142, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %144 = graph.fusion "matmul"(%143, %42, %21) : (tensor<32x128x768xf16>, tensor<768x3072xf16>, tensor<3072xf16>) -> tensor<32x128x3072xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x3072xf16>, %arg4: tensor<3072xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x3072xf16> -> tensor<32x128x3072xf16>
      %206 = graph.add %arg4, %205 : tensor<3072xf16>, tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      %207 = graph.gelu %206 : tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      graph.yield %207 : tensor<32x128x3072xf16>
    }
    %145 = graph.fusion "matmul"(%144, %43, %20, %143) : (tensor<32x128x3072xf16>, tensor<3072x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x3072xf16>, %arg3: tensor<3072x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x3072xf16>, tensor<3072x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %146 = graph.layer_norm %145, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %147 = graph.fusion "matmul"(%146, %4, %11) : (tensor<32x128x768xf16>, tensor<768x2304xf16>, tensor<2304xf16>) -> tensor<32x128x2304xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x2304xf16>, %arg4: tensor<2304xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x2304xf16> -> tensor<32x128x2304xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x2304xf16>, tensor<2304xf16> -> tensor<32x128x2304xf16>
      graph.yield %206 : tensor<32x128x2304xf16>
    }
    %148 = graph.reshape %147 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %149 = graph.reshape %147 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %150 = graph.reshape %147 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %151 = graph.attention %150, %149, %148, %69 {k_heads = array<i64: 12, 12>, k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_heads = array<i64: 0, 12>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_heads = array<i64: 24, 12>, v_perm = array<i64: 0, 2, 1, 3>} : tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x1x1x128xf16> -> tensor<32x128x12x64xf16>
    %152 = graph.reshape %151 : tensor<32x128x12x64xf16> -> tensor<32x128x768xf16>
    %153 = graph.fusion "matmul"(%152, %44, %20, %146) : (tensor<32x128x768xf16>, tensor<768x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %154 = graph.layer_norm %153, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %155 = graph.fusion "matmul"(%154, %45, %21) : (tensor<32x128x768xf16>, tensor<768x3072xf16>, tensor<3072xf16>) -> tensor<32x128x3072xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x3072xf16>, %arg4: tensor<3072xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x3072xf16> -> tensor<32x128x3072xf16>
      %206 = graph.add %arg4, %205 : tensor<3072xf16>, tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      %207 = graph.gelu %206 : tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      graph.yield %207 : tensor<32x128x3072xf16>
    }
    %156 = graph.fusion "matmul"(%155, %46, %20, %154) : (tensor<32x128x3072xf16>, tensor<3072x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x3072xf16>, %arg3: tensor<3072x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x3072xf16>, tensor<3072x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %157 = graph.layer_norm %156, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %158 = graph.fusion "matmul"(%157, %3, %11) : (tensor<32x128x768xf16>, tensor<768x2304xf16>, tensor<2304xf16>) -> tensor<32x128x2304xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x2304xf16>, %arg4: tensor<2304xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x2304xf16> -> tensor<32x128x2304xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x2304xf16>, tensor<2304xf16> -> tensor<32x128x2304xf16>
      graph.yield %206 : tensor<32x128x2304xf16>
    }
    %159 = graph.reshape %158 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %160 = graph.reshape %158 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %161 = graph.reshape %158 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %162 = graph.attention %161, %160, %159, %69 {k_heads = array<i64: 12, 12>, k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_heads = array<i64: 0, 12>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_heads = array<i64: 24, 12>, v_perm = array<i64: 0, 2, 1, 3>} : tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x1x1x128xf16> -> tensor<32x128x12x64xf16>
    %163 = graph.reshape %162 : tensor<32x128x12x64xf16> -> tensor<32x128x768xf16>
    %164 = graph.fusion "matmul"(%163, %47, %20, %157) : (tensor<32x128x768xf16>, tensor<768x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %165 = graph.layer_norm %164, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %166 = graph.fusion "matmul"(%165, %48, %21) : (tensor<32x128x768xf16>, tensor<768x3072xf16>, tensor<3072xf16>) -> tensor<32x128x3072xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x3072xf16>, %arg4: tensor<3072xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x3072xf16> -> tensor<32x128x3072xf16>
      %206 = graph.add %arg4, %205 : tensor<3072xf16>, tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      %207 = graph.gelu %206 : tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      graph.yield %207 : tensor<32x128x3072xf16>
    }
    %167 = graph.fusion "matmul"(%166, %49, %20, %165) : (tensor<32x128x3072xf16>, tensor<3072x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x3072xf16>, %arg3: tensor<3072x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x3072xf16>, tensor<3072x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %168 = graph.layer_norm %167, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %169 = graph.fusion "matmul"(%168, %2, %11) : (tensor<32x128x768xf16>, tensor<768x2304xf16>, tensor<2304xf16>) -> tensor<32x128x2304xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x2304xf16>, %arg4: tensor<2304xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x2304xf16> -> tensor<32x128x2304xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x2304xf16>, tensor<2304xf16> -> tensor<32x128x2304xf16>
      graph.yield %206 : tensor<32x128x2304xf16>
    }
    %170 = graph.reshape %169 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %171 = graph.reshape %169 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %172 = graph.reshape %169 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %173 = graph.attention %172, %171, %170, %69 {k_heads = array<i64: 12, 12>, k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_heads = array<i64: 0, 12>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_heads = array<i64: 24, 12>, v_perm = array<i64: 0, 2, 1, 3>} : tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x1x1x128xf16> -> tensor<32x128x12x64xf16>
    %174 = graph.reshape %173 : tensor<32x128x12x64xf16> -> tensor<32x128x768xf16>
    %175 = graph.fusion "matmul"(%174, %50, %20, %168) : (tensor<32x128x768xf16>, tensor<768x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %176 = graph.layer_norm %175, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %177 = graph.fusion "matmul"(%176, %51, %21) : (tensor<32x128x768xf16>, tensor<768x3072xf16>, tensor<3072xf16>) -> tensor<32x128x3072xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x3072xf16>, %arg4: tensor<3072xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x3072xf16> -> tensor<32x128x3072xf16>
      %206 = graph.add %arg4, %205 : tensor<3072xf16>, tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      %207 = graph.gelu %206 : tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      graph.yield %207 : tensor<32x128x3072xf16>
    }
    %178 = graph.fusion "matmul"(%177, %52, %20, %176) : (tensor<32x128x3072xf16>, tensor<3072x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x3072xf16>, %arg3: tensor<3072x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x3072xf16>, tensor<3072x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %179 = graph.layer_norm %178, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %180 = graph.fusion "matmul"(%179, %1, %11) : (tensor<32x128x768xf16>, tensor<768x2304xf16>, tensor<2304xf16>) -> tensor<32x128x2304xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x2304xf16>, %arg4: tensor<2304xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x2304xf16> -> tensor<32x128x2304xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x2304xf16>, tensor<2304xf16> -> tensor<32x128x2304xf16>
      graph.yield %206 : tensor<32x128x2304xf16>
    }
    %181 = graph.reshape %180 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %182 = graph.reshape %180 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %183 = graph.reshape %180 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %184 = graph.attention %183, %182, %181, %69 {k_heads = array<i64: 12, 12>, k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_heads = array<i64: 0, 12>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_heads = array<i64: 24, 12>, v_perm = array<i64: 0, 2, 1, 3>} : tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x1x1x128xf16> -> tensor<32x128x12x64xf16>
    %185 = graph.reshape %184 : tensor<32x128x12x64xf16> -> tensor<32x128x768xf16>
    %186 = graph.fusion "matmul"(%185, %53, %20, %179) : (tensor<32x128x768xf16>, tensor<768x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %187 = graph.layer_norm %186, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %188 = graph.fusion "matmul"(%187, %54, %21) : (tensor<32x128x768xf16>, tensor<768x3072xf16>, tensor<3072xf16>) -> tensor<32x128x3072xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x3072xf16>, %arg4: tensor<3072xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x3072xf16> -> tensor<32x128x3072xf16>
      %206 = graph.add %arg4, %205 : tensor<3072xf16>, tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      %207 = graph.gelu %206 : tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      graph.yield %207 : tensor<32x128x3072xf16>
    }
    %189 = graph.fusion "matmul"(%188, %55, %20, %187) : (tensor<32x128x3072xf16>, tensor<3072x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x3072xf16>, %arg3: tensor<3072x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x3072xf16>, tensor<3072x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %190 = graph.layer_norm %189, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %191 = graph.fusion "matmul"(%190, %0, %11) : (tensor<32x128x768xf16>, tensor<768x2304xf16>, tensor<2304xf16>) -> tensor<32x128x2304xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x2304xf16>, %arg4: tensor<2304xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x2304xf16> -> tensor<32x128x2304xf16>
      %206 = graph.add %205, %arg4 : tensor<32x128x2304xf16>, tensor<2304xf16> -> tensor<32x128x2304xf16>
      graph.yield %206 : tensor<32x128x2304xf16>
    }
    %192 = graph.reshape %191 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %193 = graph.reshape %191 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %194 = graph.reshape %191 : tensor<32x128x2304xf16> -> tensor<32x128x36x64xf16>
    %195 = graph.attention %194, %193, %192, %69 {k_heads = array<i64: 12, 12>, k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_heads = array<i64: 0, 12>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_heads = array<i64: 24, 12>, v_perm = array<i64: 0, 2, 1, 3>} : tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x128x36x64xf16>, tensor<32x1x1x128xf16> -> tensor<32x128x12x64xf16>
    %196 = graph.reshape %195 : tensor<32x128x12x64xf16> -> tensor<32x128x768xf16>
    %197 = graph.fusion "matmul"(%196, %56, %20, %190) : (tensor<32x128x768xf16>, tensor<768x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %198 = graph.layer_norm %197, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %199 = graph.fusion "matmul"(%198, %57, %21) : (tensor<32x128x768xf16>, tensor<768x3072xf16>, tensor<3072xf16>) -> tensor<32x128x3072xf16> {
    ^bb0(%arg2: tensor<32x128x768xf16>, %arg3: tensor<768x3072xf16>, %arg4: tensor<3072xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x768xf16>, tensor<768x3072xf16> -> tensor<32x128x3072xf16>
      %206 = graph.add %arg4, %205 : tensor<3072xf16>, tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      %207 = graph.gelu %206 : tensor<32x128x3072xf16> -> tensor<32x128x3072xf16>
      graph.yield %207 : tensor<32x128x3072xf16>
    }
    %200 = graph.fusion "matmul"(%199, %58, %20, %198) : (tensor<32x128x3072xf16>, tensor<3072x768xf16>, tensor<768xf16>, tensor<32x128x768xf16>) -> tensor<32x128x768xf16> {
    ^bb0(%arg2: tensor<32x128x3072xf16>, %arg3: tensor<3072x768xf16>, %arg4: tensor<768xf16>, %arg5: tensor<32x128x768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x128x3072xf16>, tensor<3072x768xf16> -> tensor<32x128x768xf16>
      %206 = graph.add %arg4, %205 : tensor<768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      %207 = graph.add %206, %arg5 : tensor<32x128x768xf16>, tensor<32x128x768xf16> -> tensor<32x128x768xf16>
      graph.yield %207 : tensor<32x128x768xf16>
    }
    %201 = graph.layer_norm %200, %19, %20 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<32x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<32x128x768xf16>
    %202 = graph.gather %201, %59 {axis = 1 : i64} : tensor<32x128x768xf16>, tensor<i64> -> tensor<32x768xf16>
    %203 = graph.constant dense_resource<w__inner_pooler_dense_Gemm> : tensor<768x768xf16>
    %204 = graph.fusion "matmul"(%202, %203, %20) : (tensor<32x768xf16>, tensor<768x768xf16>, tensor<768xf16>) -> tensor<32x768xf16> {
    ^bb0(%arg2: tensor<32x768xf16>, %arg3: tensor<768x768xf16>, %arg4: tensor<768xf16>):
      %205 = graph.matmul %arg2, %arg3 : tensor<32x768xf16>, tensor<768x768xf16> -> tensor<32x768xf16>
      %206 = graph.add %205, %arg4 : tensor<32x768xf16>, tensor<768xf16> -> tensor<32x768xf16>
      %207 = graph.tanh %206 : tensor<32x768xf16> -> tensor<32x768xf16>
      graph.yield %207 : tensor<32x768xf16>
    }
    return %201, %204 : tensor<32x128x768xf16>, tensor<32x768xf16>
  }
}

{-#

#-}
