package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

// CreateUser inserts a user with its email lower-cased. Conflict when the
// email (or the id) is taken.
func (s userStore) CreateUser(ctx context.Context, u contracts.User) error {
	res, err := s.exec(ctx, `INSERT INTO users (id, email, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
		u.ID, strings.ToLower(u.Email), u.Name, ms(u.CreatedAt))
	n, err := s.affected(ctx, res, err, "create user")
	if err != nil {
		return err
	}
	if n == 0 {
		return contracts.Errorf(contracts.KindConflict, "a user with this email already exists")
	}
	return nil
}

// UserByID returns a user. Not found when absent.
func (s userStore) UserByID(ctx context.Context, id string) (contracts.User, error) {
	return s.user(ctx, `SELECT id, email, name, created_at FROM users WHERE id = $1`, id)
}

// UserByEmail returns a user by email, compared case-insensitively. Not
// found when absent.
func (s userStore) UserByEmail(ctx context.Context, email string) (contracts.User, error) {
	return s.user(ctx, `SELECT id, email, name, created_at FROM users WHERE email = $1`, strings.ToLower(email))
}

func (s userStore) user(ctx context.Context, query string, arg string) (contracts.User, error) {
	var u contracts.User
	var created int64
	err := s.q.QueryRowContext(ctx, query, arg).Scan(&u.ID, &u.Email, &u.Name, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return contracts.User{}, notFound("user")
	}
	if err != nil {
		return contracts.User{}, s.s.wrap(ctx, err, "get user")
	}
	u.CreatedAt = fromMs(created)
	return u, nil
}
