# A small JAX linear regression for Ray Train's JaxTrainer: 4 workers x 4 TPU chips on a 4x4 v6e slice.
import ray.train
from ray.train import ScalingConfig
from ray.train.v2.jax import JaxTrainer


def loop():
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    x = jax.random.normal(key, (1000, 10))
    y = x @ jax.random.normal(key, (10, 1))
    w = jnp.zeros((10, 1))

    @jax.jit
    def step(w):
        loss, grad = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
        return w - 0.1 * grad, loss

    for epoch in range(50):
        w, loss = step(w)
        if epoch % 10 == 0:
            ray.train.report({"epoch": epoch, "loss": float(loss)})
    print("Training Complete!")


if __name__ == "__main__":
    trainer = JaxTrainer(
        train_loop_per_worker=loop,
        scaling_config=ScalingConfig(num_workers=4, resources_per_worker={"TPU": 4}, use_tpu=True,
                                     topology="4x4", accelerator_type="TPU-V6E"),
    )
    print(trainer.fit().metrics)
