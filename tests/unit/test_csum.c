/* SPDX-License-Identifier: ISC */
/*
 * Unit tests for csum.c: the rolling sum, each strong sum's seed rule,
 * whole-file and -c sums, names and lengths -- and block/file sums captured
 * from stock rsync 3.5.0 on loopback.
 *
 * How the stock vectors were captured: a stock daemon served a 700-byte
 * file (xorshift32 stream, seed 999) to a stock client whose destination
 * held a different 645-byte basis (xorshift32, seed 12345), with
 * `-B 16 --checksum-seed=S [--checksum-choice=X] [--protocol=P]`.  A small
 * proxy flipped one byte of the literal data, so the whole-file check
 * failed and the client redid the file with full-length block sums; the
 * proxy logged both directions.  Below are the client's redo block sums
 * (41 blocks, the last one 5 bytes) and the daemon's whole-file sum.
 */
#include "unit.h"
#include "csum.h"
#include "xxh.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/provider.h>
#include <xxhash.h>

struct stock_capture {
	enum csum_type type;
	int32_t seed;
	int seed_first;
	int s2length;               /* of the redo request */
	const char *sum2_hex;       /* count * s2length bytes */
	const char *file_sum_hex;   /* the daemon's whole-file sum */
};

static const struct stock_capture stock_caps[] = {
	/* protocol 32, --checksum-choice=md4, --checksum-seed=1234567 */
	{ CSUM_MD4, 1234567, 0, 16,
	  "8eec05f7a5a3278102a0495a708b6ddfd4f2d8462797c47e0d9f48a7546320cd"
	  "786fe44cfdbcc8a702e34233279593046afffea3cb9c190e45130848aad313a8"
	  "2e130523be6ddf1612390912f010cc2623e73443fa1a61a20f709b0c6f16a3c4"
	  "dd68bb34a24e6fa3850825e1ff1a54faa324580013b491d91dc04c4e90412600"
	  "60d02b8b6a2b92e0c1c6d15724295a48625855a6e5f647b61a62afc925e4b467"
	  "fcc10775abc74ef77f61b6dfdc27d8a3454e403aef631caab2cdc5435aacd475"
	  "26a6080deffa5ff251e0592ccd4b458850ec1b6ef66e67cae1e8f43852e827b6"
	  "a2d9ed1091538db30ee001ee20a6cbfee3b72c0ea881fb38a5d862f87f27faf1"
	  "7cac003dbc61b0b5b196f4080b63b6b0097fa7070a5dd71b8e763bc9f8cec4bc"
	  "06b59d25d1d0d4a18a67f58ffcc6751cf6fba480e9607cd2df2e08c00ae7a217"
	  "1de5da1ba23b49198d77f7547540a56c80c79aaa400db49769bbef35cf4fd431"
	  "8ecfbfbfa204b5068ea272e24eb11c8f0e5bcd46518f0434b2ef7572adb6df39"
	  "03037ef2b231631cb8d3303de0d767b69bae1ef25ba2c1e3f2cc1668c21f631b"
	  "8e72c813db3a936fe9452ed9473f94eb6fa8c836f05372e79b1fa25c41338218"
	  "16f34e745f59563fd2394b1f50a0251e353ac596d58082727263648cc7a0cecb"
	  "601f44727185835fa41c1cd7d10c3ce1b57bb779394895cd7fad9876ad5fb7dd"
	  "0c134c4ba0872ccf17892f8ce6af3dd57c1dfac7b9d1f10140819ec550d4586a"
	  "3edc2f4759f430aaa037dd1e01a7ae009cbd752fec89e4809166ea2ea996c920"
	  "82aae6a9e576eb0caa5c447924b2ddc467c6b086cca7cdbf89251c78bb5cf3b5"
	  "b6ee0fec17c7305bca29ae9a1500f155ca9826a42dcc9750dc494236d8462c75"
	  "b90ba6e0f9d0f84323415b1edff5c666"
	  , "0c7a72bb452d07db165ddda8fe7024b3" },
	/* protocol 29, --checksum-choice=md4, --checksum-seed=1234567 */
	{ CSUM_MD4, 1234567, 0, 16,
	  "8eec05f7a5a3278102a0495a708b6ddfd4f2d8462797c47e0d9f48a7546320cd"
	  "786fe44cfdbcc8a702e34233279593046afffea3cb9c190e45130848aad313a8"
	  "2e130523be6ddf1612390912f010cc2623e73443fa1a61a20f709b0c6f16a3c4"
	  "dd68bb34a24e6fa3850825e1ff1a54faa324580013b491d91dc04c4e90412600"
	  "60d02b8b6a2b92e0c1c6d15724295a48625855a6e5f647b61a62afc925e4b467"
	  "fcc10775abc74ef77f61b6dfdc27d8a3454e403aef631caab2cdc5435aacd475"
	  "26a6080deffa5ff251e0592ccd4b458850ec1b6ef66e67cae1e8f43852e827b6"
	  "a2d9ed1091538db30ee001ee20a6cbfee3b72c0ea881fb38a5d862f87f27faf1"
	  "7cac003dbc61b0b5b196f4080b63b6b0097fa7070a5dd71b8e763bc9f8cec4bc"
	  "06b59d25d1d0d4a18a67f58ffcc6751cf6fba480e9607cd2df2e08c00ae7a217"
	  "1de5da1ba23b49198d77f7547540a56c80c79aaa400db49769bbef35cf4fd431"
	  "8ecfbfbfa204b5068ea272e24eb11c8f0e5bcd46518f0434b2ef7572adb6df39"
	  "03037ef2b231631cb8d3303de0d767b69bae1ef25ba2c1e3f2cc1668c21f631b"
	  "8e72c813db3a936fe9452ed9473f94eb6fa8c836f05372e79b1fa25c41338218"
	  "16f34e745f59563fd2394b1f50a0251e353ac596d58082727263648cc7a0cecb"
	  "601f44727185835fa41c1cd7d10c3ce1b57bb779394895cd7fad9876ad5fb7dd"
	  "0c134c4ba0872ccf17892f8ce6af3dd57c1dfac7b9d1f10140819ec550d4586a"
	  "3edc2f4759f430aaa037dd1e01a7ae009cbd752fec89e4809166ea2ea996c920"
	  "82aae6a9e576eb0caa5c447924b2ddc467c6b086cca7cdbf89251c78bb5cf3b5"
	  "b6ee0fec17c7305bca29ae9a1500f155ca9826a42dcc9750dc494236d8462c75"
	  "b90ba6e0f9d0f84323415b1edff5c666"
	  , "0c7a72bb452d07db165ddda8fe7024b3" },
	/* protocol 29, default checksum, --checksum-seed=1234567 */
	{ CSUM_MD4_OLD, 1234567, 0, 16,
	  "8eec05f7a5a3278102a0495a708b6ddfd4f2d8462797c47e0d9f48a7546320cd"
	  "786fe44cfdbcc8a702e34233279593046afffea3cb9c190e45130848aad313a8"
	  "2e130523be6ddf1612390912f010cc2623e73443fa1a61a20f709b0c6f16a3c4"
	  "dd68bb34a24e6fa3850825e1ff1a54faa324580013b491d91dc04c4e90412600"
	  "60d02b8b6a2b92e0c1c6d15724295a48625855a6e5f647b61a62afc925e4b467"
	  "fcc10775abc74ef77f61b6dfdc27d8a3454e403aef631caab2cdc5435aacd475"
	  "26a6080deffa5ff251e0592ccd4b458850ec1b6ef66e67cae1e8f43852e827b6"
	  "a2d9ed1091538db30ee001ee20a6cbfee3b72c0ea881fb38a5d862f87f27faf1"
	  "7cac003dbc61b0b5b196f4080b63b6b0097fa7070a5dd71b8e763bc9f8cec4bc"
	  "06b59d25d1d0d4a18a67f58ffcc6751cf6fba480e9607cd2df2e08c00ae7a217"
	  "1de5da1ba23b49198d77f7547540a56c80c79aaa400db49769bbef35cf4fd431"
	  "8ecfbfbfa204b5068ea272e24eb11c8f0e5bcd46518f0434b2ef7572adb6df39"
	  "03037ef2b231631cb8d3303de0d767b69bae1ef25ba2c1e3f2cc1668c21f631b"
	  "8e72c813db3a936fe9452ed9473f94eb6fa8c836f05372e79b1fa25c41338218"
	  "16f34e745f59563fd2394b1f50a0251e353ac596d58082727263648cc7a0cecb"
	  "601f44727185835fa41c1cd7d10c3ce1b57bb779394895cd7fad9876ad5fb7dd"
	  "0c134c4ba0872ccf17892f8ce6af3dd57c1dfac7b9d1f10140819ec550d4586a"
	  "3edc2f4759f430aaa037dd1e01a7ae009cbd752fec89e4809166ea2ea996c920"
	  "82aae6a9e576eb0caa5c447924b2ddc467c6b086cca7cdbf89251c78bb5cf3b5"
	  "b6ee0fec17c7305bca29ae9a1500f155ca9826a42dcc9750dc494236d8462c75"
	  "b90ba6e0f9d0f84323415b1edff5c666"
	  , "a30e8315f0d80fac2621efd3d1a10327" },
	/* protocol 27, default checksum, --checksum-seed=-1 */
	{ CSUM_MD4_OLD, -1, 0, 16,
	  "4adc03a7d87f6c8985d21cb8b396934e6ae79066f67abde4ea701d9a64fd9b29"
	  "c9ea037070046d95daea87702f4a624524349c86fab7bbd8d4435c6d35cb2314"
	  "04ef299a1f82b3b498f3c18c46ab72e26aa4f786b2a2210a823f1d2bff1cd86c"
	  "3a85c7486af01ad89300bbc9e504b5b009f45f01a6ca3545e37a26639e5ca46c"
	  "3a01c0461425da8d716651e3fe566d42f8d9e2901103ce8304177241e3fb05b8"
	  "ce378165ebc17dacc0f8492ed614dfa59b62b8de5a5923bf6f183eabba061ac1"
	  "e698f1c3b5d06431e80f632a4ad0920698d461326e12fa9df47a8fe175212849"
	  "9a598b35eafb5619b4de74eced79f1d122aa8ebc887eb1f7a0b660b16e12c924"
	  "5869ba446671469a068a706cda7104350cda12f93ce8dbcacc20ad2605c6c164"
	  "0bc66e3d799ee91a817b2a8eb8593b162d166461ffe7d47087534e3a374a3aed"
	  "7c15b38f104b657218c3488ecd199346bce97e3d5cb03ae2293b9efbb57e86c1"
	  "84510b7a63344983fa1bc18773053b9e2c84606486f515c2db696165a5c88c9f"
	  "67679de9acd96fb1c3029a72579e8fe9f21feddae7e6055d32c3558b1cdd9f9d"
	  "ea93a842afd22f6d81122efaba98a84e6d1c3ded981aaefc7b617be869acd589"
	  "7a01f443f1e793328d2b6eab0dda69f43003bcea73cab3cc1a8e258529bb48fe"
	  "ddfe5056c77689f9f2bf1275883dd315287d33577c92b5fea0220837e0f109ab"
	  "df22ed744253f4d4038e84b7de21c6b6cc299569d0108af324a1f8a079b679d2"
	  "e7a65d99f5c8f851d2d955d6de407282f6a322103eba2786585afa556363694c"
	  "56e59147e11d44a9856f791e84a63317cddeea4049873e60d419486c466782b2"
	  "ff5f71bc0a73d60556b5fed7d074d67ade5ad7ad733ba0aa184f668989a263a5"
	  "ef55ee8f9d702e6736455da7e705cf9b"
	  , "c615ec0a8c7ec08e9859d5198307be39" },
	/* protocol 32, --checksum-choice=md5, --checksum-seed=1234567 */
	{ CSUM_MD5, 1234567, 1, 16,
	  "3bb8b5910208252655519f1f9cc89e8717aa85284dcf3d8656de4638118e6d56"
	  "ab85271ec9feccc62133e9d86f66f90ceb5a15fc5489add64e6e626a4ba55e04"
	  "007222b07a89c5ae3507c3cfc4fa1174b047b6c0e36499a0571624a2cb80d140"
	  "324eac28c5e47b6cbc43c04bd1d2575f46eb04cfc026cab11fd1aecb5f935bdb"
	  "39f13914110dfd6fb46df7bdc0217976407d846eba6e353503c5ceab938e6593"
	  "4b5b82c4e79651f8a1b723613f3c88051cf0336884530dbd66c0196f3372abf4"
	  "b1aa6e03a2d4bb05fd4c04de746cd73cde00f863bde14a2a957102fe0f353125"
	  "2727f16a764b4e28f554f1aa56682f62b077c76936f4a8319234facf005fc81b"
	  "bf21e23fa9a77bf6022f77494232154d477701dd7a01889f01e34b10e45ddf3b"
	  "9a65b33ad793a44f04619704c7e4a6f41416db4ee84ae43931ae555eaf825d50"
	  "ad08f02ececea1c9b14db72156c044589a3aaf93a936eabeedb2335d523dbb36"
	  "b34139e737eaa14d97a749d96b859d5de331e52bc5cdfa497c34a20f546e4c96"
	  "cf4c8963a86bcddeb59e36782fbec1a195f878b28c8af2624975be15567d8be2"
	  "80ca3991e9d3f9d25330fa58b186a550310b9c03bba33103e325b96dc4fe9817"
	  "d9c698633b4dbc722442447c40ed87d8177ca7b8b06fc27cb201caef1f7d620b"
	  "f6f8d684f44674d064c523f3c4d686c7bb210235c940cfb805419b6e296a7b01"
	  "8fbaf44b64407103f168784d313ef39c5f6ef208cb9cb3278c64fb5cbc5e35b4"
	  "f7f0ac9c31dcb113cd83e6fc1704b0575643d0f804d5fd5fb2bcda9107158f11"
	  "e0b22dec19a434a0b204a0f86afc468e15113fcc31eb62809dc8eeb3a8ac721f"
	  "10bcf3044a41d44ca03d3b6500a00ff822c4671b2e8cd3aa8abe5539ee26df5f"
	  "5a9e28ced3376c781f3f0aee9667f0d1"
	  , "f33be0cc3762857d36652305f2b6d74a" },
	/* protocol 30, --checksum-choice=md5, --checksum-seed=7 */
	{ CSUM_MD5, 7, 1, 16,
	  "a510b4cd042115171760fa3b3ab9155a18a94c66065485f4cb38608be282c154"
	  "476fef7d14ee90d69ad6637462c43c957213e62c9e1ab77a49807e719c0dcc7f"
	  "dfb9e21168bfb60fb2aadbdbe6553afc213e744772da27d2d485c317afabc1be"
	  "71aaf9c7e78b72b8c638998885e954f910bda467794b4cb650e12e6b62bae5bc"
	  "279c159751a4d3d7d16f273abd2ab9c85b5161213dd4187d33334aa951310f95"
	  "40d0d4810f0cd2bc77151541e9613125d0dfe3543e697152d101cebcab078fbd"
	  "8640c3492e7208553cb330ff4fa467216726a81ce74dfd5ba2c7141931d70fad"
	  "5bb0905b4558d787aa18373b5c8bcaf7692f11f766d17f312535568e2aab0bbd"
	  "20ab6e52ddf93c74af53f584db3fd35891f00254426037f1e2141cd05295015d"
	  "844e3a6a69f468634e61260bcc0eaf7fc0a3e3b407e8ed0095370c47a9f72ca9"
	  "7a7623c9aff8fc3a7af049ea56b0105258d6567243e6148d1128573afc611955"
	  "3118619dd1c405a920420ea6d664e9d1555723942de5c49c335e03fbbc8fd224"
	  "4c06ec9e658b104385392eac445af049dca4715914043dbdfbb66aa4fd3312c5"
	  "4b423cd17dad979c7ace462df8fc4955b087ec9ca9f5280db655bc3001bb8602"
	  "f97a24e03ad999bdd08218cc97688812c158a600f426e04848d6145ebbe8b046"
	  "eef6491206b90561f0ebe50df6b08c8f771f352eab62ec3c2a285d3169e1ec01"
	  "dc16038ac1b0002b6a51f4d360730d3b0c5c3d7a23101f2ad8a7ce4925e0761c"
	  "7122aa6d9964745037f0ce59acfec67dbc5cdcdb061a420acc3c07bfd8a11d6e"
	  "7869e352c9de1cb3c94abe3b780f749ec04c4f1db5ecf741bf70c0329e66bfa4"
	  "6093451f7c89d233ae81d66dad398539ffbd7661799a75c2d4ce18c16a39352b"
	  "b18afae0c7aaa9fee74540fbb2b9dfb6"
	  , "f33be0cc3762857d36652305f2b6d74a" },
	/* protocol 32, --checksum-choice=sha1, --checksum-seed=1234567 */
	{ CSUM_SHA1, 1234567, 0, 16,
	  "52b4c59695ebb0f1d9bc5d77ec951425943d9f5c9a178c609cf6b62381a9deca"
	  "97fe768e6ec7128867fad13e9fb3cc733d7728f9e0f30d515fce2257ffebd34c"
	  "17f727e7c78c859e3b059c9bd64a702ed23c8b7f8fecc2f77e35f176477f86d4"
	  "765651563a7ddc086830c42571c0374f6e2b8f02c7e6b42b2d7cfe91ce1878c9"
	  "88e06d8d9fc515c07413817d554904e56480931659958c0cf8b6fed77fe4f7d5"
	  "14b17d29c95cc6e1baa14d9830605a5a5a06cc40e4d385452b852ebd12ae90b4"
	  "61c1594d709a0fc97f299d58694d8b5031eb7102b96e912ae24cf1ee6fbf0c7c"
	  "50698a99b7a7a67e5c8d404a4302301a5cda982e954d57f66c29ce19be9c10f7"
	  "564d48095c28520df1d359fc7c5ffda6f16e0ff71fb5f6b622c445184d39d7c8"
	  "85e1a27586dadfa7bde1c54c4fccfb867abd7fe3141693a3a0b5876cdc9152d8"
	  "f5c71ac634c9fde10a9c1ccec1aaf7dab14ea2df231cb594eeedb59947e74686"
	  "4f616d744566c12d88efc723ef45d646a4d2079cfae6709001a1e5a9e859e04c"
	  "ff3231444166a511e0e92bb8956b4f0a454d17d4e6a98c6a9df6d3de16998079"
	  "a82ac754bdcf7b352f2dcbbd50c2a8d292dc747c84989911525bed1cc5b8ae6d"
	  "ad96208e33b7547119efd3f46222e5bc649ba3f4c87f169750d1a5d8d13cf0ff"
	  "7a578c2a247979b2bfa98fbdd6361eb4ad8ce330f15de6624a641a44ec01baec"
	  "71f94f0d7a63bdbd469f3e2a92ca07055b96cf8ff498a9470c4ec970463c5869"
	  "f52f7c1d554413ae4cc6a60871f26149d7150997ab17e449599d281cbffe0f3f"
	  "a2f489a7567b60b25d5f4c9d0e79dd73effdb0b02f7cc5da0cdce9d65003319f"
	  "94b6d0b2ad8adff081d0e8d22d992b9e282dc1452a9e3f4b13833915966d7a8e"
	  "dba9c4ac6b54d3c887128f94298df166"
	  , "9445fa44df8b4355b5b47ee05a7edf6ede09b34c" },
	/* protocol 32, --checksum-choice=xxh64, --checksum-seed=1234567 */
	{ CSUM_XXH64, 1234567, 0, 8,
	  "f7a79607e1d3458da34b1537a2bb1e1a8c6136648c6a6fa39913c572a5796fcb"
	  "ccff530ab330d99f4fda19c80e9a6ac1e106e97afe5033f907377b70235acb4c"
	  "0b75b6761aefa9df10cddc90e1fa76cff66e011d1bd309dc3dead297ff40b5be"
	  "a9c518e99e62cd0b7740da3c57340de1cf921ec0735015aac5ee9818239b7f9b"
	  "6bfc97b5d8aca31c61678512cd592b9ad1e0374d9a014ef382c5bbebae8c3bb2"
	  "e3b79eb45966ecb3cbc1c9e2f89ac24dddb2289214e777fbb7cff02803b69860"
	  "dbc1225d34ed1ac270441498b5c628eb622e593af64842caf84fec3040577887"
	  "064562425a664fead29b749b2240a016b01c18fc728ce92264681f46b8f71d42"
	  "c277ccf5dae3345bf612459865998fa72e26dcc38621140b1de938819fb26d2c"
	  "46d109432aa268c9d7045c3a4aceb44c536c5f2ffff2785753fd647f3d098bfe"
	  "4c1c7db4d487014d"
	  , "e2d4a11a55dec204" },
	/* protocol 32, --checksum-choice=xxh64, --checksum-seed=-5 */
	{ CSUM_XXH64, -5, 0, 8,
	  "6529de1e3b8aa1c3ea9acf074743007ccbd53d07483669c4aaa062c2d6abd0b7"
	  "4f27650f830da33b021dc13d28b82acc323f298bd2dc50e5d548bb3e53907292"
	  "78818402e8014ddc5611a34b481d26133b2b578a70688f7eddf36507bbcd5521"
	  "3fb5c92a84bf2f6cc84bf83841ee2ff4ab4edc05c6ec9e076b881ce369b70706"
	  "e8e85cbd6a80d9e2c2f1aeb599bc1e4e0dd54b532f9459ec55840ad92f95b48e"
	  "97665f80fbd57921b64bcfff382c305fa02670d60662a04f032c29a36069585c"
	  "f9fede03e8fb3d33ad0117a54614ca0216f4a56ae8354b7e9d77399d41e6aa28"
	  "ea5cf56dc17fcee4b36e0211b9fb02c566da8f9e7fefd9af5b3b3b06b4658962"
	  "97b6f91148face17ebb6784413a29f73e3225919fee3bd37e56f107d9570288f"
	  "8624e0ad1a8e5c8010c77c93b79ecf8f7c7294146ad20e4c282de5c6acd26c01"
	  "d44afc0a54718757"
	  , "e2d4a11a55dec204" },
	/* protocol 32, --checksum-choice=xxh3, --checksum-seed=1234567 */
	{ CSUM_XXH3, 1234567, 0, 8,
	  "376ce32c9b631e7c9a7ff3b3c19806fc9baff9b25af3ed9e3bd8d7febc9c64a0"
	  "c95bbc37627791bf088ab5b351459454e1ab4b2bee9df18a2134180d62afd27a"
	  "e192bc4febbadd86c9875b6a400ee56722e623551ac852cb4d55846b9847c809"
	  "219fcd367e26bb76cee23056592f5c2710e943a4c813ca0c54bccce9a4c635b4"
	  "3efe52c0a9e4779314a70b856f3c5f8f791ccc22108c67569ad5cf68e1f753f2"
	  "44333fcc9aef3a8c7274fe6ed82ef0ae34965663810a432f8c76f3c5557b4475"
	  "c9a0c7ef202044a3c97b08d4ba1b39c2851c3b4a3dd13733acf3976bbd899163"
	  "6659cd747bb7d1f90e1c297bfb1d662c6f798e1ef92a7e3cc9e48c9a31947ffd"
	  "ddfc5c8e0887435291dcc185a23743ba3fb02454880aa6ae83716d3339e5885a"
	  "39441c2e9cc54d8797e1531fb959a59144e9963ba5208543210adaf9c00cb81c"
	  "fcd418fb8b279191"
	  , "8393c6b69e391d92" },
	/* protocol 32, --checksum-choice=xxh3, --checksum-seed=-5 */
	{ CSUM_XXH3, -5, 0, 8,
	  "affe9a037e30caf954641d69676e4083d08f3135ad97cf98954cd49062f509db"
	  "20eca5b5b08788585b875ac8b21e1db38fa6410b6dfc2de81642553372fc72e8"
	  "6b98603fafb2713e34e759a548067dd5a5771f911f163be8159fbfcec55cc040"
	  "6a5c67a5b7839083e7a683e4044442a72a42d11b2bbd68c7b20a008fc6d02f44"
	  "24a2204afff1c5af5746d0a9b66b44420df8f75ea5c1d8b03196e340bff50484"
	  "c583b1bcaa04ad199ce69b5bdcffc4fb3835b4358b603b742efd7c375b6c9e56"
	  "d231a6abc4d12165a096e1ae0c4edd5410965c75709144b4a4b77a1beca77cc8"
	  "15503ef216184361b04262b2c6d323ef16d07dfc748ee392b74088336a5f1b42"
	  "f479ae574abaef1b318165351b0a26963b11a3c73151d3f99e2b7364b77c14ed"
	  "8337a1a24f77c6f17c8cd61c7afb75d440ff03847e77640c783249a987a3123c"
	  "291aa9eb18a5a364"
	  , "8393c6b69e391d92" },
	/* protocol 32, --checksum-choice=xxh128, --checksum-seed=1234567 */
	{ CSUM_XXH128, 1234567, 0, 16,
	  "bda168d76b98a4a4c05d08292c38eab7587c4a7371296d109d8e1df2cdcb98c9"
	  "cc5347b19c980eaba666ca4ace02fb098b712050ce4b5c6b12b0a8c4adec4d63"
	  "df2b73fa868b3366e6a6ed1170a8db5c335f548087258c642df566e571450860"
	  "6bec152611d32e1f406c99b906fe4ef15967cab1c5e7e5c54e048cbe119a1414"
	  "31f493bbc10724b3e40c8597fb694dcc91588236040c2b824bf0122e808493f7"
	  "8c463a02f75974dd13315082872cab788194653f9ca6fd94028cc437eb5f63b0"
	  "ccc32781557b026530d3ce0e79a6f5055c31cf1d00dd6e4b0c53f2ebd8ec6178"
	  "2cb646e822f3a67560fd0d7fce7e3c806fce8dcac4ed5e08e9c2f0084848ec96"
	  "bc43ee344e7be2ba400bff42757a5f8eb30569f2e3b395891a9f1a9956683247"
	  "ccfb30250f2e9f611285aa460a7fd0c33ae7331738eb4be6cd73e493f69f6ff2"
	  "7bc722b48c4948310564dc407701ec8d935e03a3e61ac5d9c96b83b2336516ce"
	  "edd900ed42df743de0a2a5de913b1b796652c67610773662c0532e263bd05465"
	  "be8d0f9eb1edcb000846855d83494262885c13d03ed5cdc55eae92a4d8f71578"
	  "13b31b9677b744befa86b04a805e1dbec6ec6e092e12de46378cb6da73af871a"
	  "c30b9046aa4e16858adafd8592390575d7e46c68a468cc1628b5ca987ecfc423"
	  "404e0d8e29b0f012578a7f3db176e230dd48857a4ab304429a2e4919527636b8"
	  "59985954a97489c8fd9f73970196c0752a635c18048e80f8104517fabcd7795e"
	  "5e9ff845a7e1ead4ab0f044268eba13675b1657af5da9b7e2a6e1be875fe0ad3"
	  "3fc69ab528c6a8d1912f6fa46fa980caa29ed5b8cb7284be8dfb9a90ff99b78e"
	  "1b6407796ef2e23ee72a4c555605266e44140cdc7a2d8f831e100f22a3e8adf5"
	  "837c7092dd2e365f180c19cfecbe7357"
	  , "8393c6b69e391d922fa2b43093de9c01" },
	/* protocol 32, --checksum-choice=xxh128, --checksum-seed=-5 */
	{ CSUM_XXH128, -5, 0, 16,
	  "a2cfcb0017bdf2b4912ecf6c75023cc6c7756b5ef9c7afe1256dd578a92c9678"
	  "fe24ab900e8ebe1c22d6307f48aa0ddaa6706dfdff88e4c2f7d15ee61659ebf9"
	  "cda8bdb03df081d7f4ec81303ec08486781460ef573c8a1218a689d3210718e7"
	  "ac4c6cd189ae98117b808a7d185b505e020665d63ae78aa5889a8981b09a2df7"
	  "48d8a1e6958baf25d0e8df01fddbfde8ffaafe69af0400e985832ab9291af4ee"
	  "33e41580815b2065b06e28854415c8ef2fbe76b7cb1e2846d63d266e9e30605f"
	  "96a55392767ee8c85015129a264437f158f143a939d9ab5a8479fb27a95e1b5a"
	  "2c888b3da6c8dea665de41a884f8e68b26467aa66ee2aa1927ee3f775d09f7cb"
	  "e9737580477e032fc40ac4b24477458bb2c64d3bc9a70b4e3a6a334631b63635"
	  "efdcf3a94d73dfc73442656ca45e1d63726472af5b3032cb83405521a3a54557"
	  "44e0f432631e6cf9286d3ddf7438653d6cf7f56928f0d8dae70f280eeb740107"
	  "66afce1d06c6767c3548979084176086b849ff41351fc500cf73ccd54fac1241"
	  "e3d1aa9763e970fcd4e1c9403765c6815b186c0b25e454e138d23a8d15d7fa38"
	  "7b355de233ac17654daefad0c17c38fb6964b7a4e6a65788e3036f265880e9c8"
	  "c4a9e97fcb51cf1563d571416bc9d0cd03273bf37922809a83cf63d4408da7df"
	  "8d0b350103f23875885dca46f89e0216109a177a26769f4500c198d901e427f1"
	  "bcfd8b5b5d67810c70cc5a485ee3c7a936e973a48e3f6783477140df193fa0bc"
	  "ae6bc8dd45004f3c55fe12997f17612a11f1cede02d291251f324105a038fc71"
	  "ad0fa9beba6329f9953492e9366b45604cadaf5745908c73b95d8f6b2f6f3cf1"
	  "ea864c229cead2417e8c0e6b7a5baf65836c2912b45891bad2e6101d48ff545c"
	  "8222a989fdcb76831af7ab2ac910d490"
	  , "8393c6b69e391d922fa2b43093de9c01" },
};
static const uint32_t stock_sum1[41] = {
	0x027700c9, 0x0d58016b, 0xfafeff38, 0xff41fe74, 0xffdeff6d, 0x0977ff94,
	0xf0bcff3f, 0x0bd000fc, 0xe9cdfe4f, 0x0f8601b6, 0x118900ee, 0x052d00f5,
	0x18400287, 0xf458fe48, 0xf672ffda, 0xfa67ffaf, 0xfcc000a9, 0xed58fe18,
	0xec1efd09, 0x10e00192, 0xee2efe4f, 0x065e0134, 0xefc7fdba, 0x05bb0094,
	0xf871ff73, 0x01baffdc, 0xfa98ffb7, 0x04d8011b, 0x071e010d, 0xfaeafeee,
	0xf5fbff3b, 0xfe9bff5b, 0xfd0aff09, 0xe3e5fcd1, 0xf932ff1c, 0x02c0ffe0,
	0xf516ff77, 0xfb25009c, 0x0bfb00ad, 0xeff2fe39, 0x00b6002c,
};

#define STOCK_BASIS_SEED 12345u
#define STOCK_BASIS_LEN 645
#define STOCK_FILE_SEED 999u
#define STOCK_FILE_LEN 700
#define STOCK_BLOCK 16

/* The same xorshift32 byte stream the capture script used. */
static void xorshift_fill(unsigned char *p, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)x;
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode hex into out (at most max bytes); returns the length or -1. */
static int unhex(const char *hex, unsigned char *out, size_t max)
{
	size_t n = strlen(hex);

	if (n % 2 != 0 || n / 2 > max)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return (int)(n / 2);
}

static int eq_hex(const unsigned char *got, const char *hex)
{
	unsigned char want[64];
	int n = unhex(hex, want, sizeof want);

	return n > 0 && memcmp(got, want, (size_t)n) == 0;
}

static int tail_zero(const unsigned char out[CSUM_MAX_LEN], int from)
{
	for (int i = from; i < CSUM_MAX_LEN; i++)
		if (out[i] != 0)
			return 0;
	return 1;
}

/* Straightforward signed-byte rolling sum, to check the unrolled one. */
static uint32_t rolling_ref(const unsigned char *p, size_t n)
{
	uint32_t s1 = 0, s2 = 0; /* unsigned: long inputs wrap, as rsync's sums do */

	for (size_t i = 0; i < n; i++) {
		s1 += (uint32_t)(int32_t)(signed char)p[i];
		s2 += s1;
	}
	return (s1 & 0xffff) | (s2 << 16);
}

/* An independent one-shot digest of a || b || c via EVP_Digest. */
static void evp_concat(const char *name, const unsigned char *a, size_t an,
		       const unsigned char *b, size_t bn, const unsigned char *c, size_t cn,
		       unsigned char *out)
{
	unsigned char buf[4096];
	unsigned int len = 0;
	EVP_MD *md = EVP_MD_fetch(NULL, name, NULL);

	if (an > 0)
		memcpy(buf, a, an);
	if (bn > 0)
		memcpy(buf + an, b, bn);
	if (cn > 0)
		memcpy(buf + an + bn, c, cn);
	memset(out, 0, CSUM_MAX_LEN);
	if (md == NULL || !EVP_Digest(buf, an + bn + cn, out, &len, md, NULL))
		memset(out, 0xee, CSUM_MAX_LEN);
	EVP_MD_free(md);
}

static void file_sum(const struct csum_params *p, int transfer, const unsigned char *d,
		     size_t n, unsigned char out[CSUM_MAX_LEN])
{
	struct csum_file c;

	memset(out, 0xaa, CSUM_MAX_LEN);
	if (csum_file_init(&c, p, transfer) != 0)
		return;
	csum_file_update(&c, d, n);
	csum_file_final(&c, out);
}

static void test_rolling(void)
{
	const unsigned char hello[] = "hello world\nhell";
	const unsigned char neg[] = { 0xff, 0x80, 0x01 };
	unsigned char buf[300];

	CHECK(csum_rolling(hello, 16) == 0x3411060b);
	CHECK(csum_rolling(neg, 3) == 0xfefeff80);
	CHECK(csum_rolling(neg, 0) == 0);
	xorshift_fill(buf, sizeof buf, 77);
	for (size_t n = 0; n <= sizeof buf; n++)
		CHECK_MSG(csum_rolling(buf, n) == rolling_ref(buf, n), "n=%zu", n);
	memset(buf, 0xff, sizeof buf);
	CHECK(csum_rolling(buf, sizeof buf) == rolling_ref(buf, sizeof buf));
	CHECK(csum_rolling(buf, 1) == 0xffffffff);   /* -1: both halves 0xffff */

	/* Rolling by one byte as the spec describes equals recomputing. */
	xorshift_fill(buf, sizeof buf, 5);
	uint32_t k = 40, s = csum_rolling(buf, k);
	uint32_t s1 = s & 0xffff, s2 = s >> 16;
	for (size_t off = 0; off + k < sizeof buf; off++) {
		uint32_t old = (uint32_t)(int32_t)(signed char)buf[off];
		uint32_t nw = (uint32_t)(int32_t)(signed char)buf[off + k];

		s1 += nw - old;
		s2 += s1 - k * old;
		CHECK_MSG(((s1 & 0xffff) | (s2 << 16)) == csum_rolling(buf + off + 1, k),
			  "off=%zu", off);
	}
}

/*
 * The vectorised weak sum (rolling.c) against the scalar definition and the
 * reference: every length up to a few vector steps, every alignment, the
 * bytes where signedness matters, and lengths long enough for the 32-bit
 * lane sums to wrap many times.
 */
static void test_rolling_vector(void)
{
	static unsigned char big[3 << 20];
	static const unsigned char fills[] = { 0x00, 0x7f, 0x80, 0xff, 0x01 };
	size_t lens[] = { 32 * 1024, 32 * 1024 + 31, 65536 + 7, 131072, 700001, sizeof big - 64 };

	printf("weak sum: %s\n", csum_rolling_impl());
	CHECK(strcmp(csum_rolling_impl(), "scalar") == 0 || strcmp(csum_rolling_impl(), "avx2") == 0);
	xorshift_fill(big, sizeof big, 1234);
	for (size_t off = 0; off < 64; off++)
		for (size_t n = 0; n <= 200; n++)
			CHECK_MSG(csum_rolling(big + off, n) == csum_rolling_scalar(big + off, n) &&
				  csum_rolling_scalar(big + off, n) == rolling_ref(big + off, n),
				  "off=%zu n=%zu", off, n);
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
		for (size_t off = 0; off < 64; off += 13)
			CHECK_MSG(csum_rolling(big + off, lens[i]) == rolling_ref(big + off, lens[i]),
				  "random off=%zu n=%zu", off, lens[i]);
	for (size_t f = 0; f < sizeof fills; f++) {
		memset(big, fills[f], sizeof big);
		for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
			CHECK_MSG(csum_rolling(big + 3, lens[i]) == rolling_ref(big + 3, lens[i]),
				  "fill %02x n=%zu", fills[f], lens[i]);
	}
	/* alternating extremes: the largest pair products maddubs sees */
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (i & 1) ? 0x80 : 0x7f;
	CHECK(csum_rolling(big, sizeof big) == rolling_ref(big, sizeof big));
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (i % 3) ? 0x80 : 0xff;
	CHECK(csum_rolling(big + 1, sizeof big - 1) == rolling_ref(big + 1, sizeof big - 1));
}

static void test_names_lengths(void)
{
	CHECK(csum_from_name("md4") == CSUM_MD4);
	CHECK(csum_from_name("md5") == CSUM_MD5);
	CHECK(csum_from_name("sha1") == CSUM_SHA1);
	CHECK(csum_from_name("xxh64") == CSUM_XXH64);
	CHECK(csum_from_name("xxhash") == CSUM_XXH64);
	CHECK(csum_from_name("xxh3") == CSUM_XXH3);
	CHECK(csum_from_name("xxh128") == CSUM_XXH128);
	CHECK(csum_from_name("none") == CSUM_NONE);
	CHECK(csum_from_name("XXH128") == CSUM_XXH128);   /* names are case-insensitive */
	CHECK(csum_from_name("MD5") == CSUM_MD5);
	CHECK(csum_from_name("sha256") == -1);
	CHECK(csum_from_name("auto") == -1);
	CHECK(csum_from_name("md4old") == -1);
	CHECK(csum_from_name("") == -1);
	CHECK(csum_from_name("md") == -1);
	CHECK(csum_from_name("md55") == -1);
	CHECK(csum_from_name(NULL) == -1);

	CHECK(strcmp(csum_name(CSUM_MD4), "md4") == 0);
	CHECK(strcmp(csum_name(CSUM_MD4_OLD), "md4") == 0);
	CHECK(strcmp(csum_name(CSUM_XXH64), "xxh64") == 0);
	CHECK(strcmp(csum_name(CSUM_NONE), "none") == 0);
	CHECK(csum_name((enum csum_type)99) != NULL);
	for (int t = CSUM_MD4; t <= CSUM_XXH128; t++)
		CHECK(csum_from_name(csum_name((enum csum_type)t)) == t);

	CHECK(csum_len(CSUM_NONE) == 1);
	CHECK(csum_len(CSUM_MD4_OLD) == 16);
	CHECK(csum_len(CSUM_MD4) == 16);
	CHECK(csum_len(CSUM_MD5) == 16);
	CHECK(csum_len(CSUM_SHA1) == 20);
	CHECK(csum_len(CSUM_XXH64) == 8);
	CHECK(csum_len(CSUM_XXH3) == 8);
	CHECK(csum_len(CSUM_XXH128) == 16);
	CHECK(csum_len((enum csum_type)99) == 0);
}

/* RFC 1320 / RFC 1321 / FIPS 180 vectors, no seed. */
static void test_known_vectors(void)
{
	static const struct {
		enum csum_type t;
		const char *in;
		const char *hex;
	} v[] = {
		{ CSUM_MD4, "", "31d6cfe0d16ae931b73c59d7e0c089c0" },
		{ CSUM_MD4, "abc", "a448017aaf21d8525fc10ae87aa6729d" },
		{ CSUM_MD4, "message digest", "d9130a8164549fe818874806e1c7014b" },
		{ CSUM_MD4_OLD, "abc", "a448017aaf21d8525fc10ae87aa6729d" },
		{ CSUM_MD5, "", "d41d8cd98f00b204e9800998ecf8427e" },
		{ CSUM_MD5, "abc", "900150983cd24fb0d6963f7d28e17f72" },
		{ CSUM_MD5, "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
		{ CSUM_SHA1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d" },
		{ CSUM_SHA1, "", "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
		/* XXH64("", 0) = 0xef46db3751d8e999, little-endian on the wire */
		{ CSUM_XXH64, "", "99e9d85137db46ef" },
		/* XXH3_64bits("", 0) = 0x2d06800538d394c2 */
		{ CSUM_XXH3, "", "c294d338058006 2d" },
	};
	unsigned char out[CSUM_MAX_LEN];

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		struct csum_params p = { v[i].t, 0, 0 };
		char hex[64];
		size_t j = 0;

		/* allow a space in the table for readability */
		for (const char *c = v[i].hex; *c && j + 1 < sizeof hex; c++)
			if (*c != ' ')
				hex[j++] = *c;
		hex[j] = '\0';
		memset(out, 0x5a, sizeof out);
		csum_block(&p, (const unsigned char *)v[i].in, strlen(v[i].in), out);
		CHECK_MSG(eq_hex(out, hex), "vector %zu", i);
		CHECK_MSG(tail_zero(out, csum_len(v[i].t)), "vector %zu tail", i);
		file_sum(&p, 0, (const unsigned char *)v[i].in, strlen(v[i].in), out);
		CHECK_MSG(eq_hex(out, hex), "file vector %zu", i);
	}
}

/* Appendix B of the spec: "hello world\n" x3 against a basis with one
 * block changed, md5 with the seed first, seed 0x6b006f93. */
static void test_appendix_b(void)
{
	const char *file = "hello world\nhello world\nhello world\n";
	const char *basis = "hello world\nhello world\nHELLO world\n";
	struct csum_params p = { CSUM_MD5, (int32_t)0x6b006f93, 1 };
	static const uint32_t sum1[3] = { 0x3411060b, 0x2d93053b, 0x03de014c };
	static const char *sum2[3] = { "cb20", "213f", "a191" };
	unsigned char out[CSUM_MAX_LEN];

	for (int b = 0; b < 3; b++) {
		size_t n = b < 2 ? 16 : 4;
		const unsigned char *d = (const unsigned char *)basis + 16 * b;

		CHECK_MSG(csum_rolling(d, n) == sum1[b], "block %d", b);
		csum_block(&p, d, n, out);
		CHECK_MSG(eq_hex(out, sum2[b]), "block %d", b);
	}
	file_sum(&p, 1, (const unsigned char *)file, strlen(file), out);
	CHECK(eq_hex(out, "57a65a56506092a9b1a00f0058bf6ae9"));
	CHECK(tail_zero(out, 16));
}

/* The seed rules of part 1 section 5.4, against independent EVP calls. */
static void test_seed_placement(void)
{
	unsigned char data[100], out[CSUM_MAX_LEN], want[CSUM_MAX_LEN];
	const int32_t seed = (int32_t)0x89abcdef;     /* negative: LE bytes ef cd ab 89 */
	const unsigned char seed_le[4] = { 0xef, 0xcd, 0xab, 0x89 };
	struct csum_params p;

	xorshift_fill(data, sizeof data, 3);

	p = (struct csum_params){ CSUM_MD4_OLD, seed, 0 };
	csum_block(&p, data, sizeof data, out);
	evp_concat("MD4", data, sizeof data, seed_le, 4, NULL, 0, want);
	CHECK(memcmp(out, want, 16) == 0);           /* md4 old: seed appended */
	p.type = CSUM_MD4;
	csum_block(&p, data, sizeof data, out);
	CHECK(memcmp(out, want, 16) == 0);           /* named md4: the same */

	p = (struct csum_params){ CSUM_MD5, seed, 1 };
	csum_block(&p, data, sizeof data, out);
	evp_concat("MD5", seed_le, 4, data, sizeof data, NULL, 0, want);
	CHECK(memcmp(out, want, 16) == 0);           /* md5, seed fix: first */
	p.seed_first = 0;
	csum_block(&p, data, sizeof data, out);
	evp_concat("MD5", data, sizeof data, seed_le, 4, NULL, 0, want);
	CHECK(memcmp(out, want, 16) == 0);           /* md5 without it: last */

	p = (struct csum_params){ CSUM_SHA1, seed, 0 };
	csum_block(&p, data, sizeof data, out);
	evp_concat("SHA1", seed_le, 4, data, sizeof data, NULL, 0, want);
	CHECK(memcmp(out, want, 20) == 0);           /* sha1: first */

	/* Seed 0 means no seed for every block sum. */
	static const struct { enum csum_type t; const char *evp; } z[] = {
		{ CSUM_MD4_OLD, "MD4" }, { CSUM_MD4, "MD4" }, { CSUM_MD5, "MD5" }, { CSUM_SHA1, "SHA1" },
	};
	for (size_t i = 0; i < sizeof z / sizeof z[0]; i++) {
		for (int sf = 0; sf < 2; sf++) {
			p = (struct csum_params){ z[i].t, 0, sf };
			csum_block(&p, data, sizeof data, out);
			evp_concat(z[i].evp, data, sizeof data, NULL, 0, NULL, 0, want);
			CHECK_MSG(memcmp(out, want, (size_t)csum_len(z[i].t)) == 0, "type %d", z[i].t);
		}
	}

	/* Whole-file sums: only old md4 with transfer=1 is seeded, always in
	 * front, even when the seed is 0. */
	p = (struct csum_params){ CSUM_MD4_OLD, seed, 0 };
	file_sum(&p, 1, data, sizeof data, out);
	evp_concat("MD4", seed_le, 4, data, sizeof data, NULL, 0, want);
	CHECK(memcmp(out, want, 16) == 0);
	p.seed = 0;
	file_sum(&p, 1, data, sizeof data, out);
	evp_concat("MD4", (const unsigned char *)"\0\0\0\0", 4, data, sizeof data, NULL, 0, want);
	CHECK(memcmp(out, want, 16) == 0);
	p.seed = seed;
	file_sum(&p, 0, data, sizeof data, out);     /* -c: never seeded */
	evp_concat("MD4", data, sizeof data, NULL, 0, NULL, 0, want);
	CHECK(memcmp(out, want, 16) == 0);
	p.seed = 0;
	file_sum(&p, 0, data, sizeof data, out);
	CHECK(memcmp(out, want, 16) == 0);
	for (size_t i = 1; i < sizeof z / sizeof z[0]; i++) {
		for (int transfer = 0; transfer < 2; transfer++) {
			p = (struct csum_params){ z[i].t, seed, 1 };
			file_sum(&p, transfer, data, sizeof data, out);
			evp_concat(z[i].evp, data, sizeof data, NULL, 0, NULL, 0, want);
			CHECK_MSG(memcmp(out, want, (size_t)csum_len(z[i].t)) == 0, "type %d", z[i].t);
			CHECK(tail_zero(out, csum_len(z[i].t)));
		}
	}
}

static void put_le64(unsigned char *o, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		o[i] = (unsigned char)(v >> (8 * i));
}

/*
 * Every build of the xxhash functions (xxh.h) against the shared library,
 * one shot and streamed in uneven pieces, across the lengths where XXH3
 * changes algorithm (0, 1-3, 4-8, 9-16, 17-128, 129-240, long, stripes and
 * blocks) and seeds that exercise the custom-secret path.
 */
static void test_xxh_builds(void)
{
	static unsigned char d[70000];
	static const size_t lens[] = { 0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 255, 256, 1023, 1024,
				       1025, 4096, 16384, 16385, 32768, 65536, 69999 };
	static const uint64_t seeds[] = { 0, 1, 0xfffffffffffffffbULL, 0x12345678ULL };
	const struct xxh_ops *ops[] = { &xxh_ops_base, xxh_ops() };

	printf("xxhash build: %s\n", xxh_ops()->name);
	xorshift_fill(d, sizeof d, 99);
	for (size_t o = 0; o < 2; o++) {
		for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
			size_t n = lens[i];

			for (size_t j = 0; j < sizeof seeds / sizeof seeds[0]; j++) {
				uint64_t sd = seeds[j], hi = 0, lo;
				XXH128_hash_t w = XXH3_128bits_withSeed(d + 1, n, sd);

				CHECK_MSG(ops[o]->hash(XXH_K64, d + 1, n, sd, &hi) == XXH64(d + 1, n, sd),
					  "%s xxh64 n=%zu", ops[o]->name, n);
				CHECK_MSG(ops[o]->hash(XXH_K3_64, d + 1, n, sd, &hi) == XXH3_64bits_withSeed(d + 1, n, sd),
					  "%s xxh3 n=%zu", ops[o]->name, n);
				lo = ops[o]->hash(XXH_K3_128, d + 1, n, sd, &hi);
				CHECK_MSG(lo == w.low64 && hi == w.high64, "%s xxh128 n=%zu", ops[o]->name, n);
			}
			for (int k = XXH_K64; k <= XXH_K3_128; k++) {
				void *st = ops[o]->start((enum xxh_kind)k);
				uint64_t hi = 0, lo, wlo, whi = 0;
				size_t off = 0, step = 1;

				CHECK(st != NULL);
				if (st == NULL)
					continue;
				while (off < n) {
					size_t take = n - off < step ? n - off : step;

					ops[o]->update((enum xxh_kind)k, st, d + off, take);
					off += take;
					step = step * 3 + 1;
				}
				lo = ops[o]->digest((enum xxh_kind)k, st, &hi);
				if (k == XXH_K64) {
					wlo = XXH64(d, n, 0);
				} else if (k == XXH_K3_64) {
					wlo = XXH3_64bits(d, n);
				} else {
					XXH128_hash_t w = XXH3_128bits(d, n);
					wlo = w.low64;
					whi = w.high64;
				}
				CHECK_MSG(lo == wlo && (k != XXH_K3_128 || hi == whi), "%s streamed kind %d n=%zu",
					  ops[o]->name, k, n);
			}
		}
		ops[o]->discard(XXH_K3_128, ops[o]->start(XXH_K3_128));
	}
}

static void test_xxhash(void)
{
	unsigned char data[77], out[CSUM_MAX_LEN], want[16];
	struct csum_params p = { CSUM_XXH64, -5, 0 };

	xorshift_fill(data, sizeof data, 11);

	/* The int32 seed is sign-extended: -5 is 0xfffffffffffffffb. */
	csum_block(&p, data, sizeof data, out);
	put_le64(want, XXH64(data, sizeof data, 0xfffffffffffffffbULL));
	CHECK(memcmp(out, want, 8) == 0);
	put_le64(want, XXH64(data, sizeof data, 0xfffffffbULL));
	CHECK(memcmp(out, want, 8) != 0);
	CHECK(tail_zero(out, 8));

	p.type = CSUM_XXH3;
	csum_block(&p, data, sizeof data, out);
	put_le64(want, XXH3_64bits_withSeed(data, sizeof data, 0xfffffffffffffffbULL));
	CHECK(memcmp(out, want, 8) == 0);
	put_le64(want, XXH3_64bits_withSeed(data, sizeof data, 0xfffffffbULL));
	CHECK(memcmp(out, want, 8) != 0);

	p.type = CSUM_XXH128;
	csum_block(&p, data, sizeof data, out);
	XXH128_hash_t h = XXH3_128bits_withSeed(data, sizeof data, 0xfffffffffffffffbULL);
	put_le64(want, h.low64);
	put_le64(want + 8, h.high64);
	CHECK(memcmp(out, want, 16) == 0);
	CHECK(tail_zero(out, 16));

	/* A positive seed is used as is. */
	p = (struct csum_params){ CSUM_XXH64, 1234567, 0 };
	csum_block(&p, data, sizeof data, out);
	put_le64(want, XXH64(data, sizeof data, 1234567));
	CHECK(memcmp(out, want, 8) == 0);

	/* File sums are unseeded. */
	file_sum(&p, 1, data, sizeof data, out);
	put_le64(want, XXH64(data, sizeof data, 0));
	CHECK(memcmp(out, want, 8) == 0);
	p.type = CSUM_XXH128;
	file_sum(&p, 1, data, sizeof data, out);
	h = XXH3_128bits_withSeed(data, sizeof data, 0);
	put_le64(want, h.low64);
	put_le64(want + 8, h.high64);
	CHECK(memcmp(out, want, 16) == 0);
}

static void test_none_and_tails(void)
{
	unsigned char data[10] = { 1, 2, 3 }, out[CSUM_MAX_LEN];
	struct csum_params p = { CSUM_NONE, 42, 0 };

	memset(out, 0xff, sizeof out);
	csum_block(&p, data, sizeof data, out);
	CHECK(tail_zero(out, 0));
	file_sum(&p, 1, data, sizeof data, out);
	CHECK(tail_zero(out, 0));

	/* Every type zeroes everything after its digest. */
	for (int t = CSUM_NONE; t <= CSUM_XXH128; t++) {
		p = (struct csum_params){ (enum csum_type)t, 99, 1 };
		memset(out, 0xff, sizeof out);
		csum_block(&p, data, sizeof data, out);
		CHECK_MSG(tail_zero(out, csum_len((enum csum_type)t)), "type %d", t);
		memset(out, 0xff, sizeof out);
		file_sum(&p, 1, data, sizeof data, out);
		CHECK_MSG(tail_zero(out, csum_len((enum csum_type)t)), "type %d", t);
	}
}

/* Incremental file sums equal one-shot ones whatever the update split;
 * abort releases the state (LSan checks). */
static void test_file_incremental(void)
{
	unsigned char data[5000], one[CSUM_MAX_LEN], inc[CSUM_MAX_LEN];

	xorshift_fill(data, sizeof data, 21);
	for (int t = CSUM_NONE; t <= CSUM_XXH128; t++) {
		struct csum_params p = { (enum csum_type)t, 7, 1 };
		struct csum_file c;
		size_t off = 0, step = 1;

		file_sum(&p, 1, data, sizeof data, one);
		CHECK(csum_file_init(&c, &p, 1) == 0);
		while (off < sizeof data) {
			size_t n = step < sizeof data - off ? step : sizeof data - off;

			csum_file_update(&c, data + off, n);
			off += n;
			step = step * 3 + 1;
		}
		csum_file_update(&c, data, 0);
		csum_file_final(&c, inc);
		CHECK_MSG(memcmp(one, inc, CSUM_MAX_LEN) == 0, "type %d", t);

		CHECK(csum_file_init(&c, &p, 0) == 0);
		csum_file_update(&c, data, 100);
		csum_file_abort(&c);
		csum_file_abort(&c);      /* twice is harmless */
	}
	struct csum_params bad = { (enum csum_type)99, 0, 0 };
	struct csum_file c;

	CHECK(csum_file_init(&c, &bad, 1) == -1);
	csum_file_final(&c, one);     /* safe after a failed init */
	CHECK(tail_zero(one, 0));
}

/* Block and file sums as stock rsync 3.5.0 computed them. */
static void test_stock_captures(void)
{
	unsigned char basis[STOCK_BASIS_LEN], file[STOCK_FILE_LEN];
	unsigned char want[41 * CSUM_MAX_LEN], out[CSUM_MAX_LEN];
	const int nblocks = (STOCK_BASIS_LEN + STOCK_BLOCK - 1) / STOCK_BLOCK;

	xorshift_fill(basis, sizeof basis, STOCK_BASIS_SEED);
	xorshift_fill(file, sizeof file, STOCK_FILE_SEED);
	CHECK(nblocks == 41 && sizeof stock_sum1 / sizeof stock_sum1[0] == 41);

	for (int b = 0; b < nblocks; b++) {
		size_t n = b < nblocks - 1 ? STOCK_BLOCK : STOCK_BASIS_LEN % STOCK_BLOCK;

		CHECK_MSG(csum_rolling(basis + STOCK_BLOCK * b, n) == stock_sum1[b], "block %d", b);
	}
	for (size_t c = 0; c < sizeof stock_caps / sizeof stock_caps[0]; c++) {
		const struct stock_capture *k = &stock_caps[c];
		struct csum_params p = { k->type, k->seed, k->seed_first };
		int s2 = k->s2length;
		int bad = 0;

		CHECK(unhex(k->sum2_hex, want, sizeof want) == nblocks * s2);
		for (int b = 0; b < nblocks; b++) {
			size_t n = b < nblocks - 1 ? STOCK_BLOCK : STOCK_BASIS_LEN % STOCK_BLOCK;

			csum_block(&p, basis + STOCK_BLOCK * b, n, out);
			if (memcmp(out, want + b * s2, (size_t)s2) != 0)
				bad++;
		}
		CHECK_MSG(bad == 0, "capture %zu (%s seed %d): %d blocks differ",
			  c, csum_name(k->type), k->seed, bad);
		file_sum(&p, 1, file, sizeof file, out);
		CHECK_MSG(eq_hex(out, k->file_sum_hex), "capture %zu file sum", c);
		CHECK(tail_zero(out, csum_len(k->type)));
	}

	/* -c file-list sums captured from stock: protocol 29 (md4, unseeded
	 * although the session seed was 1234567) and xxh128. */
	struct csum_params p = { CSUM_MD4_OLD, 1234567, 0 };

	file_sum(&p, 0, file, sizeof file, out);
	CHECK(eq_hex(out, "0c7a72bb452d07db165ddda8fe7024b3"));
	p.type = CSUM_XXH128;
	file_sum(&p, 0, file, sizeof file, out);
	CHECK(eq_hex(out, "8393c6b69e391d922fa2b43093de9c01"));
}

int main(void)
{
	/* Only the independent references use OpenSSL's MD4 (legacy); the
	 * code under test has its own (md4.c), as the worker does. */
	OSSL_PROVIDER *legacy = OSSL_PROVIDER_load(NULL, "legacy");
	OSSL_PROVIDER *deflt = OSSL_PROVIDER_load(NULL, "default");

	CHECK(legacy != NULL && deflt != NULL);
	test_rolling();
	test_rolling_vector();
	test_names_lengths();
	test_known_vectors();
	test_appendix_b();
	test_seed_placement();
	test_xxhash();
	test_xxh_builds();
	test_none_and_tails();
	test_file_incremental();
	test_stock_captures();
	OSSL_PROVIDER_unload(legacy);
	OSSL_PROVIDER_unload(deflt);
	return unit_done("test_csum");
}
